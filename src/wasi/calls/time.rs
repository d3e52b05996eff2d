//! Clocks, `poll_oneoff` and `sched_yield`: deterministic time (docs/wasi.md,
//! "Determinism").
//!
//! Every clock reads `ns`, the run's exact instruction count so far (the calling instruction
//! included, docs/counting.md) at one nanosecond per instruction, plus the nanoseconds slept
//! in `poll_oneoff`: the monotonic, process and thread clocks read `ns`, the realtime clock
//! [`EPOCH_NS`] + `ns`. Every clock's resolution is 1 ns.
//!
//! `poll_oneoff` never waits. When a descriptor subscription is among its subscriptions, the
//! descriptors are ready at once (files always are; stdin is reported ready) and no time
//! passes: the events are those descriptors and any clock already due. Otherwise it sleeps to
//! the earliest clock deadline by advancing the slept time to it, and the events are every
//! clock due then. A relative timeout is from `ns`; an absolute one is a time of its clock
//! (realtime minus [`EPOCH_NS`]). Clocks other than realtime and monotonic are `EINVAL`
//! there, as in wasmtime.

use alloc::vec::Vec;

use super::{Args, Ret, enumeration, flags};
use crate::wasi::abi::{Errno, FD_READWRITE_HANGUP, SUBSCRIPTION_CLOCK_ABSTIME, clock, eventtype, layout};
use crate::wasi::fds::Desc;
use crate::wasi::guest::{Guest, le_u32, le_u64};
use crate::wasi::{EPOCH_NS, MAX_SUBSCRIPTIONS, State, stdio};

/// The reading of clock `id` (already checked to be one of the four).
fn read_clock(st: &State, guest: &Guest<'_, '_>, id: u32) -> Result<u64, Errno> {
    let ns = st.now_ns(guest);
    if id == clock::REALTIME { EPOCH_NS.checked_add(ns).ok_or(Errno::OVERFLOW) } else { Ok(ns) }
}

/// `clock_res_get(id, → resolution)`: 1 ns for every clock.
pub(super) fn clock_res_get(_st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    enumeration(args.u32(0), clock::THREAD_CPUTIME)?;
    guest.write_u64(args.u32(1), 1)?;
    Ok(())
}

/// `clock_time_get(id, precision, → time)`; the precision is ignored (every reading is exact).
pub(super) fn clock_time_get(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let id = enumeration(args.u32(0), clock::THREAD_CPUTIME)?;
    let out = args.u32(2);
    guest.check(out, 8)?;
    let t = read_clock(st, guest, id)?;
    guest.write_u64(out, t)?;
    Ok(())
}

/// `sched_yield()`: nothing else runs, so it returns at once.
pub(super) fn sched_yield(_st: &mut State, _guest: &mut Guest<'_, '_>, _args: Args<'_>) -> Ret {
    Ok(())
}

/// One subscription, decoded.
enum Sub {
    /// A clock deadline on the monotonic time line, in ns.
    Clock { deadline: u64 },
    /// A descriptor ready now: the event's type, `nbytes` and flags.
    Fd { kind: u8, nbytes: u64, flags: u16 },
}

/// Decodes subscription `s` (48 bytes, `layout::SUBSCRIPTION_SIZE`).
fn decode(st: &State, now: u64, s: &[u8]) -> Result<Sub, Errno> {
    let tag = enumeration(u32::from(s[8]), u32::from(eventtype::FD_WRITE))? as u8;
    if tag == eventtype::CLOCK {
        let id = enumeration(le_u32(&s[16..]), clock::THREAD_CPUTIME)?;
        let timeout = le_u64(&s[24..]);
        let sub_flags =
            flags(u32::from(u16::from_le_bytes([s[40], s[41]])), u32::from(SUBSCRIPTION_CLOCK_ABSTIME))?;
        let absolute = sub_flags != 0;
        let deadline = match (id, absolute) {
            (clock::MONOTONIC | clock::REALTIME, false) => now.saturating_add(timeout),
            (clock::MONOTONIC, true) => timeout,
            (clock::REALTIME, true) => timeout.saturating_sub(EPOCH_NS),
            _ => return Err(Errno::INVAL),
        };
        return Ok(Sub::Clock { deadline });
    }
    let fd = le_u32(&s[16..]);
    let (nbytes, flags) = match (tag, st.fds.get(fd)?) {
        (eventtype::FD_READ, Desc::Stdin) => match stdio::stdin_remaining(&st.stdin, st.stdin_pos) {
            Some(0) => (0, FD_READWRITE_HANGUP),
            Some(n) => (n, 0),
            None => (1, 0),
        },
        (eventtype::FD_READ, Desc::File(f)) => {
            let size = f.file.metadata().map_err(|e| crate::wasi::errno::from_io(&e))?.len();
            let n = size.saturating_sub(f.pos);
            (n, if n == 0 { FD_READWRITE_HANGUP } else { 0 })
        }
        (eventtype::FD_WRITE, Desc::Stdout | Desc::Stderr | Desc::File(_)) => (1, 0),
        _ => return Err(Errno::BADF),
    };
    Ok(Sub::Fd { kind: tag, nbytes, flags })
}

/// `poll_oneoff(in, out, nsubscriptions, → nevents)`.
pub(super) fn poll_oneoff(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let (input, output, n, nevents) = (args.u32(0), args.u32(1), args.u32(2), args.u32(3));
    if n == 0 || n > MAX_SUBSCRIPTIONS {
        // wasmtime: no subscription would wait forever, which preview 1 does not allow.
        return Err(Errno::INVAL.into());
    }
    guest.check(input, u64::from(n) * u64::from(layout::SUBSCRIPTION_SIZE))?;
    guest.check(output, u64::from(n) * u64::from(layout::EVENT_SIZE))?;
    guest.check(nevents, 4)?;
    let subs: Vec<u8> = guest.read(input, n * layout::SUBSCRIPTION_SIZE)?.to_vec();
    let now = st.now_ns(guest);
    let mut decoded = Vec::with_capacity(n as usize);
    for s in subs.chunks_exact(layout::SUBSCRIPTION_SIZE as usize) {
        decoded.push((le_u64(s), decode(st, now, s)?));
    }
    let any_fd = decoded.iter().any(|(_, s)| matches!(s, Sub::Fd { .. }));
    let wake = if any_fd {
        now
    } else {
        let earliest = decoded
            .iter()
            .filter_map(|(_, s)| if let Sub::Clock { deadline } = s { Some(*deadline) } else { None })
            .min()
            .unwrap_or(now);
        earliest.max(now)
    };
    st.slept_ns = st.slept_ns.saturating_add(wake - now);
    let mut events = Vec::new();
    for (userdata, s) in &decoded {
        let (kind, nbytes, flags) = match *s {
            Sub::Clock { deadline } if deadline <= wake => (eventtype::CLOCK, 0, 0),
            Sub::Clock { .. } => continue,
            Sub::Fd { kind, nbytes, flags } => (kind, nbytes, flags),
        };
        let mut e = [0u8; layout::EVENT_SIZE as usize];
        e[0..8].copy_from_slice(&userdata.to_le_bytes());
        // `error` (u16) at 8 stays 0.
        e[10] = kind;
        e[16..24].copy_from_slice(&nbytes.to_le_bytes());
        e[24..26].copy_from_slice(&flags.to_le_bytes());
        events.extend_from_slice(&e);
    }
    let count = (events.len() / layout::EVENT_SIZE as usize) as u32;
    guest.write(output, &events)?;
    guest.write_u32(nevents, count)?;
    Ok(())
}
