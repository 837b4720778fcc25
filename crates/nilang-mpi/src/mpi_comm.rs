//! The processes of an MPI job as a [`Comm`] ([`MpiComm`]), with the feature `mpi`; without
//! it, [`MpiComm::init`] says why there is none.

use crate::Comm;

/// What [`MpiComm::init`] answers when this build has no MPI.
///
/// ```
/// # #[cfg(not(feature = "mpi"))]
/// assert_eq!(nilang_mpi::MpiComm::init().err().as_deref(), Some(nilang_mpi::WITHOUT_MPI));
/// ```
pub const WITHOUT_MPI: &str = "nilang-mpi was built without its `mpi` feature, so there is no MPI \
communicator: install MPI (Debian: apt-get install libopenmpi-dev openmpi-bin libclang-dev) and \
build with `--features mpi`, or run the ranks as threads (nilang_mpi::ThreadComm)";

/// `MPI_COMM_WORLD` of an MPI job (`mpirun -np N …`), initialised once per process; MPI is
/// finalised when it is dropped. The all-gather is `MPI_Allgather` of the lengths, then
/// `MPI_Allgatherv` of the data; the all-to-all `MPI_Alltoall` of the lengths, then
/// `MPI_Alltoallv`; the neighbours' exchange point-to-point messages to rank ± 1.
///
/// ```
/// use nilang_mpi::MpiComm;
///
/// match MpiComm::init() {
///     // with `--features mpi`, a process started without mpirun is a job of one rank
///     Ok(world) => println!("rank {} of {}", nilang_mpi::Comm::rank(&world), nilang_mpi::Comm::size(&world)),
///     Err(why) => println!("no MPI: {why}"),
/// }
/// ```
pub struct MpiComm {
    #[cfg(feature = "mpi")]
    world: mpi::topology::SimpleCommunicator,
    // dropped after `world`: finalises MPI
    #[cfg(feature = "mpi")]
    _universe: mpi::environment::Universe,
    #[cfg(not(feature = "mpi"))]
    never: std::convert::Infallible,
}

#[cfg(feature = "mpi")]
impl MpiComm {
    /// Initialises MPI and returns the world communicator; an error when MPI was already
    /// initialised in this process.
    pub fn init() -> Result<MpiComm, String> {
        let universe =
            mpi::initialize().ok_or("MpiComm::init: MPI is already initialised in this process")?;
        Ok(MpiComm {
            world: universe.world(),
            _universe: universe,
        })
    }
}

#[cfg(not(feature = "mpi"))]
impl MpiComm {
    /// Always [`WITHOUT_MPI`] in a build without the feature `mpi`.
    pub fn init() -> Result<MpiComm, String> {
        Err(WITHOUT_MPI.to_string())
    }
}

#[cfg(feature = "mpi")]
impl Comm for MpiComm {
    fn rank(&self) -> usize {
        use mpi::traits::Communicator;
        self.world.rank() as usize
    }
    fn size(&self) -> usize {
        use mpi::traits::Communicator;
        self.world.size() as usize
    }
    fn all_gather_u64(&self, local: &[u64]) -> Vec<Vec<u64>> {
        use mpi::datatype::PartitionMut;
        use mpi::traits::CommunicatorCollectives;
        let mut lens = vec![0u64; self.size()];
        self.world
            .all_gather_into(&(local.len() as u64), &mut lens[..]);
        let counts: Vec<mpi::Count> = lens.iter().map(|&n| count(n as usize)).collect();
        let mut buf = vec![0u64; lens.iter().sum::<u64>() as usize];
        {
            let displs = displacements(&counts);
            let mut parts = PartitionMut::new(&mut buf[..], &counts[..], &displs[..]);
            self.world.all_gather_varcount_into(local, &mut parts);
        }
        split(&buf, &counts)
    }
    /// Non-blocking sends to the two neighbours, then a probed receive from each
    /// (`MPI_Isend`, `MPI_Probe`/`MPI_Recv`, `MPI_Wait`): messages between two ranks arrive in
    /// the order they were sent, so consecutive exchanges cannot mix.
    fn neighbours_u64(&self, to_prev: &[u64], to_next: &[u64]) -> [Vec<u64>; 2] {
        use mpi::traits::{Communicator, Destination, Source};
        let neighbours = crate::comm::neighbour_ranks(self.rank(), self.size());
        let at = |r: usize| self.world.process_at_rank(r as mpi::Rank);
        let mut got = [Vec::new(), Vec::new()];
        mpi::request::scope(|scope| {
            let sends: Vec<_> = neighbours
                .iter()
                .zip([to_prev, to_next])
                .filter_map(|(r, part)| r.map(|r| at(r).immediate_send(scope, part)))
                .collect();
            for (r, received) in neighbours.iter().zip(&mut got) {
                if let Some(r) = r {
                    *received = at(*r).receive_vec::<u64>().0;
                }
            }
            for request in sends {
                request.wait();
            }
        });
        got
    }

    fn all_to_all_u64(&self, parts: &[Vec<u64>]) -> Vec<Vec<u64>> {
        use mpi::datatype::{Partition, PartitionMut};
        use mpi::traits::CommunicatorCollectives;
        crate::check_parts(parts.len(), self.size());
        let send_counts: Vec<mpi::Count> = parts.iter().map(|p| count(p.len())).collect();
        let mut recv_counts = vec![0 as mpi::Count; self.size()];
        self.world
            .all_to_all_into(&send_counts[..], &mut recv_counts[..]);
        let send = parts.concat();
        let mut buf = vec![0u64; recv_counts.iter().map(|&n| n as usize).sum()];
        {
            let send_displs = displacements(&send_counts);
            let out = Partition::new(&send[..], &send_counts[..], &send_displs[..]);
            let recv_displs = displacements(&recv_counts);
            let mut into = PartitionMut::new(&mut buf[..], &recv_counts[..], &recv_displs[..]);
            self.world.all_to_all_varcount_into(&out, &mut into);
        }
        split(&buf, &recv_counts)
    }
}

/// `n` as MPI's count type, or a panic saying that a message is too long for it.
#[cfg(feature = "mpi")]
fn count(n: usize) -> mpi::Count {
    mpi::Count::try_from(n).unwrap_or_else(|_| {
        panic!("MpiComm: a rank sends {n} values in one message, more than MPI's count type holds")
    })
}

/// Where each of the consecutive parts of `counts` values begins.
#[cfg(feature = "mpi")]
fn displacements(counts: &[mpi::Count]) -> Vec<mpi::Count> {
    let starts = counts.iter().scan(0usize, |at, &n| {
        let here = *at;
        *at += n as usize;
        Some(count(here))
    });
    starts.collect()
}

/// `buf` cut into consecutive parts of `counts` values.
#[cfg(feature = "mpi")]
fn split(buf: &[u64], counts: &[mpi::Count]) -> Vec<Vec<u64>> {
    let mut rest = buf;
    let parts = counts.iter().map(|&n| {
        let (part, tail) = rest.split_at(n as usize);
        rest = tail;
        part.to_vec()
    });
    parts.collect()
}

#[cfg(not(feature = "mpi"))]
impl Comm for MpiComm {
    fn rank(&self) -> usize {
        match self.never {}
    }
    fn size(&self) -> usize {
        match self.never {}
    }
    fn all_gather_u64(&self, _: &[u64]) -> Vec<Vec<u64>> {
        match self.never {}
    }
    fn all_to_all_u64(&self, _: &[Vec<u64>]) -> Vec<Vec<u64>> {
        match self.never {}
    }
}
