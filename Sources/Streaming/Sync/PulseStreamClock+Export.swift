// yt-gst — libpulse's two calls that PulseStreamClock takes over, as C symbols: an executable that exports them
// (the linker's --dynamic-list with scripts/exported-symbols.list, see Package.swift) gets pulsesink's calls first.

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
