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
/// `MPI_Allgatherv` of the data.
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
        let size = self.size();
        let mut lens = vec![0u64; size];
        self.world
            .all_gather_into(&(local.len() as u64), &mut lens[..]);
        let count = |n: u64| {
            mpi::Count::try_from(n).unwrap_or_else(|_| {
                panic!("MpiComm::all_gather_u64: a rank sends {n} values, more than MPI's count type holds")
            })
        };
        let counts: Vec<mpi::Count> = lens.iter().map(|&n| count(n)).collect();
        let displs: Vec<mpi::Count> = counts
            .iter()
            .scan(0u64, |at, &n| {
                let here = *at;
                *at += n as u64;
                Some(count(here))
            })
            .collect();
        let mut buf = vec![0u64; lens.iter().sum::<u64>() as usize];
        {
            let mut parts = PartitionMut::new(&mut buf[..], &counts[..], &displs[..]);
            self.world.all_gather_varcount_into(local, &mut parts);
        }
        let mut rest = &buf[..];
        lens.iter()
            .map(|&n| {
                let (part, tail) = rest.split_at(n as usize);
                rest = tail;
                part.to_vec()
            })
            .collect()
    }
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
}
