// yt-gst — the kernel's clocks as audio servers read them, whatever this process's C library makes of its own.
internal import CGStreamer
import Glibc

/// The kernel's clocks, read by the system call instead of the C library's `clock_gettime`. Why: PipeWire stamps its
/// stream timing on the kernel's CLOCK_MONOTONIC and PulseAudio its timing snapshots on CLOCK_REALTIME, and a
/// process whose C library clock is shifted or scaled (libfaketime interposes `clock_gettime`, not the system call)
/// must place those stamps on the kernel's clocks, then convert to its own.
public enum KernelClock {
    /// `clock` (CLOCK_MONOTONIC, CLOCK_REALTIME, ...) in ns.
    public static func nanoseconds(_ clock: Int32) -> Int64 { CGst_kernel_clock_ns(clock) }
}
