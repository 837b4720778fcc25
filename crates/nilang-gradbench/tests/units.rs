//! What the library's modules promise on their own: the seeded inputs, the protocol's
//! answers to bad lines, the k-means search variants, and the dual-numbers LSE.
//! (Integration tests, so that `cargo test` builds the library once.)

mod seeded {
    use nilang_gradbench::seeded::uniform;

    #[test]
    fn reproducible_in_range_and_seed_dependent() {
        let a = uniform(7, 1000);
        assert_eq!(a, uniform(7, 1000));
        assert_ne!(a, uniform(8, 1000));
        assert!(a.iter().all(|v| (-1.0..1.0).contains(v)));
        let mean = a.iter().sum::<f64>() / a.len() as f64;
        assert!(mean.abs() < 0.1, "{mean}");
        assert_eq!(uniform(3, 5), uniform(3, 10)[..5]);
    }
}

mod protocol {
    use nilang_gradbench::serve;
    use serde_json::{json, Value};

    fn responses(input: &[u8]) -> Vec<Value> {
        let mut out = Vec::new();
        serve(input, &mut out).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn one_response_per_message_blank_lines_skipped() {
        let input = b"{\"id\": 0, \"kind\": \"start\"}\n\n{\"id\": 1, \"kind\": \"define\", \"module\": \"hello\"}\n{\"id\": 2, \"kind\": \"evaluate\", \"module\": \"hello\", \"function\": \"square\", \"input\": 3.0}\n";
        let r = responses(input);
        assert_eq!(r.len(), 3);
        assert_eq!(r[0], json!({"id": 0, "tool": "nilang"}));
        assert_eq!(r[1], json!({"id": 1, "success": true}));
        assert_eq!(r[2]["output"], json!(9.0));
    }

    #[test]
    fn a_line_that_is_not_utf8_is_answered_and_the_next_one_served() {
        let mut input = b"\xff\xfe not text\n".to_vec();
        input.extend_from_slice(b"{\"id\": 7, \"kind\": \"start\"}\n");
        let r = responses(&input);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0]["success"], json!(false));
        assert!(r[0]["error"].as_str().unwrap().contains("unreadable line"));
        assert_eq!(r[1], json!({"id": 7, "tool": "nilang"}));
    }

    #[test]
    fn a_line_that_fails_to_parse_is_answered_with_its_id() {
        let r = responses(b"{\"id\": 12, \"kind\": \"evaluate\", \"input\": [1, 2,}\n");
        assert_eq!(r[0]["id"], json!(12));
        assert_eq!(r[0]["success"], json!(false));
        let r = responses(b"{\"input\": {\"id\": 3}, \"id\": \"a\", \"kind\" \"start\"}\n");
        assert_eq!(r[0]["id"], json!("a"), "the top-level id, not a nested one");
        let r = responses(b"{\"kind\": \"start\", \"note\": \"\\\"id\\\": 4\", oops}\n");
        assert_eq!(
            r[0]["id"],
            json!(null),
            "an id inside a string is not the id"
        );
        let r = responses(b"not json at all\n");
        assert_eq!(r[0]["id"], json!(null));
    }

    #[test]
    fn a_result_that_is_not_finite_is_a_failure() {
        let input = b"{\"id\": 1, \"kind\": \"define\", \"module\": \"hello\"}\n{\"id\": 2, \"kind\": \"evaluate\", \"module\": \"hello\", \"function\": \"square\", \"input\": 1e308}\n";
        let r = responses(input);
        assert_eq!(r[1]["id"], json!(2));
        assert_eq!(r[1]["success"], json!(false), "{}", r[1]);
        assert!(
            r[1]["error"].as_str().unwrap().contains("not finite"),
            "{}",
            r[1]
        );
        assert!(r[1].get("output").is_none());
    }

    #[test]
    fn a_closed_output_ends_the_session_quietly() {
        struct Closed;
        impl std::io::Write for Closed {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let input: &[u8] = b"{\"id\": 0, \"kind\": \"start\"}\n{\"id\": 1, \"kind\": \"start\"}\n";
        assert!(serve(input, Closed).is_ok());
    }
}

mod kmeans_search {
    use nilang_gradbench::evals::kmeans::{nearest, Centroids};

    /// Both instruction-set variants of the blocked search pick the same centroid as the plain
    /// search, ties included (whichever variant `nearest` dispatches to, the other is tested
    /// here too; tests/validate.rs checks `nearest` itself).
    #[test]
    fn every_search_variant_picks_the_plain_searchs_centroid() {
        let mut state = 7u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for (k, d) in [(1, 1), (3, 2), (10, 8), (17, 16), (64, 3)] {
            let mut c: Vec<f64> = (0..k * d).map(|_| next()).collect();
            if k > 2 {
                // centroid 2 repeats centroid 0: the first of equal distances must win
                let first: Vec<f64> = c[..d].to_vec();
                c[2 * d..3 * d].copy_from_slice(&first);
            }
            let points: Vec<f64> = (0..50 * d).map(|_| next()).chain(c.clone()).collect();
            let table = Centroids::of(&c, d);
            for i in 0..points.len() / d {
                let p = &points[i * d..(i + 1) * d];
                let want = nearest(&points, &c, i, d);
                assert_eq!(table.nearest_portable(p), want, "k {k}, d {d}, point {i}");
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the processor has AVX2
                    assert_eq!(
                        unsafe { table.nearest_avx2(p) },
                        want,
                        "k {k}, d {d}, point {i}"
                    );
                }
            }
        }
    }
}

mod dualrev_lse {
    #[test]
    fn the_shift_does_not_change_the_gradient() {
        let x = [1000.0, 1001.0, 999.5];
        let g = nilang_gradbench::evals::dualrev::lse::gradient(&x).unwrap();
        assert!((g.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        assert!(nilang_gradbench::evals::dualrev::lse::primal(&x).is_finite());
    }
}
