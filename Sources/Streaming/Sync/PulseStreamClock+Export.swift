// yt-gst — libpulse's calls that PulseStreamClock takes over, as C symbols: an executable that exports them (the
// linker's --dynamic-list with scripts/exported-symbols.list, see Package.swift) gets pulsesink's (and libpulse's
// own) calls first.
import Glibc
import GstPlayer

/// libpulse's `pa_stream_get_time`, interposed where the executable exports it: `PulseStreamClock` answers, with
/// libpulse's own time unless a synchronised receiver turned its fitted clock on.
@_cdecl("pa_stream_get_time")
public func paStreamGetTime(_ stream: OpaquePointer?, _ time: UnsafeMutablePointer<UInt64>?) -> Int32 {
    PulseStreamClock.streamTime(stream, time)
}

/// libpulse's `pa_stream_connect_playback`, interposed where the executable exports it: every playback stream is
/// connected with a stream time that `PulseStreamClock` keeps from wrapping (see `PulseStreamClock.connectPlayback`).
@_cdecl("pa_stream_connect_playback")
public func paStreamConnectPlayback(
    _ stream: OpaquePointer?, _ device: UnsafePointer<CChar>?, _ attributes: UnsafeRawPointer?, _ flags: UInt32,
    _ volume: UnsafeRawPointer?, _ syncStream: OpaquePointer?
) -> Int32 {
    PulseStreamClock.connectPlayback(stream, device, attributes, flags, volume, syncStream)
}

/// libpulse's `pa_stream_write`, interposed where the executable exports it: a synchronised receiver's stream plays
/// silence until its client writes (see `PulseStreamClock.feedSilence`).
@_cdecl("pa_stream_write")
public func paStreamWrite(
    _ stream: OpaquePointer?, _ data: UnsafeRawPointer?, _ length: Int,
    _ free: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?, _ offset: Int64, _ seek: Int32
) -> Int32 {
    PulseStreamClock.write(stream, data, length, free, offset, seek)
}

/// libpulse's `pa_gettimeofday`, interposed where the executable exports it: the kernel's wall clock, on which the
/// server stamps its timing snapshots. Why: libpulse keeps the server's stamp of a snapshot only when it lies between
/// the request and the answer on this process's wall clock; a process whose C library clock is shifted or scaled
/// (libfaketime) lost every stamp, and `PulseStreamClock` stamped its snapshots at their arrival instead, 25-35 µs
/// late (measured in the multi-room lab: a room whose clocks ran 200 ppm fast sat 45 µs behind the others). Where the
/// C library's clock is the kernel's, as on every machine not under libfaketime, nothing changes.
@_cdecl("pa_gettimeofday")
public func paGetTimeOfDay(_ time: UnsafeMutablePointer<timeval>?) -> UnsafeMutablePointer<timeval>? {
    let now = KernelClock.nanoseconds(CLOCK_REALTIME)
    time?.pointee = timeval(tv_sec: Int(now / 1_000_000_000), tv_usec: Int(now % 1_000_000_000 / 1000))
    return time
}
