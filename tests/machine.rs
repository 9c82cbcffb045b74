//! The machine's cores, shared among the tests that keep several of them busy at
//! once (a browser drawing a game, several server processes): such a test holds the
//! cores it keeps busy, so two of them run side by side only where the machine has
//! the cores for both (on two cores, one after the other). Every other test runs
//! as the test harness schedules it, beside them or not, and never waits here.

use std::sync::LazyLock;
use std::time::Instant;

use tokio::sync::{Semaphore, SemaphorePermit};

/// How much of the machine a test keeps busy.
#[derive(Debug, Clone, Copy)]
pub enum Load {
    /// This many cores (as many as the machine has, if it has fewer).
    Cores(u32),
    /// Every core: the test runs as fast as the machine lets it.
    WholeMachine,
}

/// Cores held by a test that keeps them busy, given back when dropped.
#[derive(Debug)]
#[must_use = "the cores are given back as soon as this is dropped"]
pub struct HeldCores<'a> {
    /// The permits, one per core.
    _permits: SemaphorePermit<'a>,
}

/// Waits until the cores of `load` are free on this machine, then holds them for as
/// long as the result lives. `why` says what keeps them busy and whose timing would
/// suffer beside another such test; it is printed when the test has to wait, so that
/// a slow run says what it waited for.
pub async fn hold_cores(load: Load, why: &str) -> HeldCores<'static> {
    static MACHINE: LazyLock<Cores> = LazyLock::new(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Cores::new(u32::try_from(cores).unwrap_or(1024))
    });
    MACHINE.hold(load, why).await
}

/// A number of cores, as permits.
#[derive(Debug)]
struct Cores {
    /// One permit per core.
    permits: Semaphore,
    /// How many there are.
    total: u32,
}

impl Cores {
    fn new(total: u32) -> Cores {
        Cores {
            permits: Semaphore::new(total as usize),
            total,
        }
    }

    /// See [`hold_cores`].
    async fn hold(&self, load: Load, why: &str) -> HeldCores<'_> {
        let cores = match load {
            Load::Cores(n) => n.clamp(1, self.total),
            Load::WholeMachine => self.total,
        };
        if let Ok(permits) = self.permits.try_acquire_many(cores) {
            return HeldCores { _permits: permits };
        }
        eprintln!(
            "waiting for {cores} of the machine's {} cores: {why}",
            self.total
        );
        let started = Instant::now();
        let permits = self
            .permits
            .acquire_many(cores)
            .await
            .expect("the semaphore is never closed");
        eprintln!(
            "holding {cores} of {} cores after waiting {:?}: {why}",
            self.total,
            started.elapsed()
        );
        HeldCores { _permits: permits }
    }

    /// Cores nobody holds.
    #[cfg(test)]
    fn free(&self) -> usize {
        self.permits.available_permits()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{Cores, Load};

    #[tokio::test]
    async fn a_test_holding_the_whole_machine_makes_the_next_heavy_one_wait_until_it_is_done() {
        let machine: &'static Cores = Box::leak(Box::new(Cores::new(2)));
        let whole = machine.hold(Load::WholeMachine, "the first").await;
        assert_eq!(machine.free(), 0);
        let next = tokio::spawn(machine.hold(Load::Cores(1), "the second"));
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(
            !next.is_finished(),
            "no core is free while the first holds all"
        );
        drop(whole);
        let one = tokio::time::timeout(Duration::from_secs(5), next)
            .await
            .expect("a core is free once the first is done")
            .expect("task");
        assert_eq!(machine.free(), 1);
        drop(one);
        assert_eq!(machine.free(), 2);
    }

    #[tokio::test]
    async fn two_tests_that_fit_on_the_machine_hold_their_cores_side_by_side() {
        let machine = Cores::new(4);
        let a = machine.hold(Load::Cores(2), "a").await;
        let b = tokio::time::timeout(Duration::from_secs(1), machine.hold(Load::Cores(2), "b"))
            .await
            .expect("two and two fit on four cores");
        assert_eq!(machine.free(), 0);
        drop((a, b));
        assert_eq!(machine.free(), 4);
    }

    #[tokio::test]
    async fn a_test_asking_for_more_cores_than_the_machine_has_gets_them_all() {
        let machine = Cores::new(2);
        let held = machine.hold(Load::Cores(64), "more than there are").await;
        assert_eq!(machine.free(), 0);
        drop(held);
        assert_eq!(machine.free(), 2);
    }
}
