//! Every implementation once at a small size, on both tokio runtimes where it is async:
//! each run checks its own answer and fails with a `Mismatch` when it is wrong.

use comparison::stream;

fn runtimes() -> [tokio::runtime::Runtime; 2] {
    [
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap(),
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap(),
    ]
}

#[test]
fn stream_thread_based_peers() {
    for n in [0, 1, 7] {
        stream::sesh::run(n).unwrap();
        stream::mpstthree::run(n).unwrap();
    }
}

#[test]
fn stream_async_implementations() {
    for rt in runtimes() {
        for n in [0, 1, 7] {
            rt.block_on(stream::rumpsteak::run(n, false)).unwrap();
            rt.block_on(stream::ferrite::run(n)).unwrap();
            rt.block_on(stream::ours::run(n, false)).unwrap();
            rt.block_on(stream::ours_spsc::run(n, false)).unwrap();
            rt.block_on(stream::bare::run(n, false)).unwrap();
        }
        rt.block_on(stream::rumpsteak::run(7, true)).unwrap();
        rt.block_on(stream::ours::run(7, true)).unwrap();
        rt.block_on(stream::ours_spsc::run(7, true)).unwrap();
        rt.block_on(stream::bare::run(7, true)).unwrap();
        assert!(rt.block_on(stream::ours::run(2, true)).is_err());
        assert!(rt.block_on(stream::rumpsteak::run(2, true)).is_err());
    }
}

#[test]
fn stream_check_rejects_a_wrong_sum() {
    let (count, sum) = stream::expected(10);
    assert!(stream::check("test", 10, (count, sum + 1)).is_err());
    assert!(stream::check("test", 10, (count - 1, sum)).is_err());
    assert!(stream::check("test", 10, (count, sum)).is_ok());
}

use comparison::double_buffering;

#[test]
fn double_buffering_thread_based_peers() {
    for n in [0, 1, 100] {
        double_buffering::sesh::run(n).unwrap();
        double_buffering::mpstthree::run(n).unwrap();
    }
}

#[test]
fn double_buffering_async_implementations() {
    for rt in runtimes() {
        for n in [0, 1, 100] {
            for optimised in [false, true] {
                rt.block_on(double_buffering::ours::run(n, optimised))
                    .unwrap();
                rt.block_on(double_buffering::ours_spsc::run(n, optimised))
                    .unwrap();
                rt.block_on(double_buffering::bare::run(n, optimised))
                    .unwrap();
                rt.block_on(double_buffering::rumpsteak::run(n, optimised))
                    .unwrap();
            }
            rt.block_on(double_buffering::ferrite::run(n)).unwrap();
        }
    }
}

#[test]
fn double_buffering_check_rejects_a_damaged_buffer() {
    let good = vec![double_buffering::fill(0, 5), double_buffering::fill(1, 5)];
    assert!(double_buffering::check_all("test", 5, &good).is_ok());
    let mut swapped = good.clone();
    swapped.swap(0, 1);
    assert!(double_buffering::check_all("test", 5, &swapped).is_err());
    let mut damaged = good.clone();
    damaged[1][3] ^= 1;
    assert!(double_buffering::check_all("test", 5, &damaged).is_err());
    assert!(double_buffering::check_all("test", 5, &good[..1]).is_err());
}

use comparison::fft;
use std::sync::Arc;

#[test]
fn fft_sequential_and_thread_based() {
    for n in [0, 1, 9] {
        let problem = fft::Problem::new(n);
        fft::rustfft::run(&problem).unwrap();
        fft::sesh::run(&problem).unwrap();
        fft::mpstthree::run(&problem).unwrap();
    }
}

#[test]
fn fft_async_implementations() {
    for rt in runtimes() {
        for n in [0, 1, 9] {
            let problem = Arc::new(fft::Problem::new(n));
            for optimised in [false, true] {
                rt.block_on(fft::ours::run(problem.clone(), optimised))
                    .unwrap();
                rt.block_on(fft::ours_spsc::run(problem.clone(), optimised))
                    .unwrap();
                rt.block_on(fft::bare::run(problem.clone(), optimised))
                    .unwrap();
            }
            rt.block_on(fft::rumpsteak::run(problem.clone())).unwrap();
            rt.block_on(fft::ferrite::run(&problem)).unwrap();
        }
    }
}

#[test]
fn fft_check_rejects_a_wrong_transform() {
    let problem = fft::Problem::new(4);
    let mut output = problem.expected.clone();
    assert!(problem.check("test", &output).is_ok());
    output[3][2] += fft::Complex32::new(0.01, 0.0);
    assert!(problem.check("test", &output).is_err());
    // The roles' order is bit-reversed: handing back frequencies in natural order is wrong.
    assert!(
        problem
            .check_roles("test", problem.expected.clone())
            .is_err()
    );
}

#[test]
fn fft_reference_matches_a_hand_computed_transform() {
    // Row of ones: all energy at frequency 0.
    let mut problem = fft::Problem::new(1);
    for column in &mut problem.columns {
        column[0] = fft::Complex32::new(1.0, 0.0);
    }
    let random = fft::Problem::new(1);
    assert!(
        random.expected.iter().skip(1).any(|k| k[0].norm() > 1e-3),
        "random input has energy everywhere"
    );
    let mut expected = vec![vec![fft::Complex32::new(0.0, 0.0)]; fft::ROLES];
    expected[0][0] = fft::Complex32::new(8.0, 0.0);
    problem.expected = expected;
    fft::rustfft::run(&problem).unwrap();
    fft::sesh::run(&problem).unwrap();
}
