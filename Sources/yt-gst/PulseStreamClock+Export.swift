// yt-gst — the one symbol the executable exports: pulsesink's calls to pa_stream_get_time come here first.
import Streaming

/// libpulse's `pa_stream_get_time`, interposed (scripts/exported-symbols.list): `PulseStreamClock` answers, with
/// libpulse's own time unless a synchronised receiver turned its fitted clock on.
@_cdecl("pa_stream_get_time")
public func paStreamGetTime(_ stream: OpaquePointer?, _ time: UnsafeMutablePointer<UInt64>?) -> Int32 {
    PulseStreamClock.streamTime(stream, time)
}
