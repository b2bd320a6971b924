// yt-gst — a synchronised receiver's libpulse stream, started before its first sample: when, and the silence it
// plays until its client writes.
import GstPlayer
import Synchronization

extension PulseStreamClock {
    /// When a stream that its client connects corked (pulsesink's) is started here, before its first sample. Why:
    /// pulsesink uncorks its stream once its first samples are written, and its clock was calibrated just before, at
    /// a position the stream reached only later (7 ms later on PulseAudio's null sink, measured in the multi-room
    /// lab): every room played that much late from its first sample and skipped as much some 175 ms in. A stream that
    /// already plays when the first sample is placed has a position to calibrate on (`ReceiverSync
    /// .waitForOutputPositions` asks for it).
    enum Start: Equatable, Sendable {
        /// On PulseAudio itself: once a receiver places its outputs (`beginPlacing`), 1-25 ms before the first
        /// sample, silent (PulseAudio plays on a stream that runs dry: pulsesink's has no prebuffering). Started as
        /// the output opened instead, the rooms' corrections for their device's rate in their first 2 s (a null sink
        /// runs some 190 ppm fast, and each room moved by 40-125 µs every 0.4 s) fell out of step: 59-107 µs between
        /// three rooms at p99 in 10 s lab runs, against 20-23 µs.
        case whenPlaced
        /// On pipewire-pulse: at the first reading of its time, as the output opens where the receiver opens it
        /// before a sender is heard (`OutputWarmUp` reads it then), else when it is placed; it plays silence written
        /// here until its client writes (`feedSilence`). Why that early: its position is exact (the graph's own
        /// cycle starts, see `exactLine`) some 50-75 ms after the stream starts, more than a start when placed leaves
        /// before the first sample, and each room's start-up move skipped or repeated the difference, 0.3-2.4 ms
        /// about 0.2 s into the sound (lab, three rooms: 10 rooms of 12; since, none over 0.5 ms in 27).
        case whenAsked

        /// The start on `server`; nil where the client starts the stream: on a server not known yet (as before
        /// PulseAudio was told from pipewire-pulse), and on pipewire-pulse where the client's writes are not seen
        /// (`Library.clientWritesSeen`): its silence would not end, and a stream started without silence is stopped
        /// for running dry and starts again at a later graph cycle.
        init?(on server: Server?, clientWritesSeen: Bool) {
            switch server {
            case .pulseAudio: self = .whenPlaced
            case .pipeWire where clientWritesSeen: self = .whenAsked
            default: return nil
            }
        }

        /// Whether a stream connected at `connectedAt` (µs) is to start now.
        func isDue(connectedAt: UInt64) -> Bool {
            self == .whenAsked || placingSince.load(ordering: .relaxed) >= connectedAt
        }
    }

    /// When a receiver last began to place its outputs (µs, `monotonicMicroseconds`).
    static let placingSince = Atomic<UInt64>(0)

    /// A receiver places its outputs from now on: the streams connected before start when their time is next read.
    static func beginPlacing() {
        placingSince.store(monotonicMicroseconds(), ordering: .relaxed)
    }

    /// `PA_STREAM_START_CORKED` (pulse/def.h): the stream is connected corked, and its client starts it.
    static let startCorked: UInt32 = 0x0001

    /// How far ahead of the time since it started a stream's silence is written (s): more than the 5 ms between two
    /// readings of `OutputWarmUp` and the 20 ms between two snapshots, each of which writes more; less than its
    /// client's buffer (40 ms, `ReceiverSync.outputBufferMicroseconds`), which leaves the client room for its first
    /// write at once.
    static let silenceLead = 0.025

    /// Writes silence into `stream` (libpulse's main loop locked), up to `silenceLead` ahead of the time since it
    /// started, while it was started here on pipewire-pulse (`Start.whenAsked`) and its client has not written: at
    /// most what the server asks for. Why: pipewire-pulse stops a stream that runs dry and starts it again at a later
    /// graph cycle when data comes (the position of one that played nothing before its first sample ran 2-4 ms ahead
    /// then). The client's first write goes where its clock says in the stream (pulsesink writes at absolute
    /// offsets) and replaces what it covers.
    static func feedSilence(_ stream: OpaquePointer?) {
        guard isEnabled, let library = Library.shared, library.clientWritesSeen else { return }
        let now = monotonicMicroseconds()
        let key = address(of: stream)
        let due = streams.withLock { all -> Double in
            guard let state = all[key], state.start == .whenAsked, !state.clientWrote, state.rate > 0,
                let startedAt = state.startedAt
            else { return 0 }
            return state.rate * (Double(now - startedAt) / 1e6 + silenceLead) - state.silenceFrames
        }
        // Every reading of a stream's time comes here: only one still to be fed asks libpulse more.
        guard due >= 1, let spec = library.sampleSpec(stream) else { return }
        let (frameBytes, writable) = (library.frameSize(spec), library.writableSize(stream))
        guard frameBytes > 0, writable > 0 else { return }
        let frames = min(Int(due), writable / frameBytes)
        guard frames > 0 else { return }
        let silence = [UInt8](repeating: silentByte(format: spec.load(as: Int32.self)), count: frames * frameBytes)
        let written = silence.withUnsafeBytes {
            library.write(stream, $0.baseAddress, $0.count, nil, 0, seekRelative) == 0
        }
        if written { streams.withLock { $0[key]?.silenceFrames += Double(frames) } }
    }

    /// `PA_SEEK_RELATIVE` (pulse/def.h): right after what was written before.
    static let seekRelative: Int32 = 0

    /// The byte of silence in a `pa_sample_format_t`: unsigned 8-bit samples and A-law and μ-law have their own.
    static func silentByte(format: Int32) -> UInt8 {
        switch format {
        case 0: 0x80  // PA_SAMPLE_U8
        case 1: 0xD5  // PA_SAMPLE_ALAW
        case 2: 0xFF  // PA_SAMPLE_ULAW
        default: 0
        }
    }

    /// Whether a stream whose time was read since `start` (µs, `monotonicMicroseconds`) plays the silence of
    /// `feedSilence`, started here with its client not writing yet; nil when none was read since (pulsesink's
    /// stream not connected yet, or not pulsesink's).
    static func feedsSilence(askedSince start: UInt64) -> Bool? {
        streams.withLock { all in
            let asked = all.values.filter { $0.lastAsked >= start }
            return asked.isEmpty
                ? nil : asked.contains { $0.start == .whenAsked && $0.startedAt != nil && !$0.clientWrote }
        }
    }

    /// libpulse's `pa_stream_write`, as `pulsesink` (and ALSA's `pulse` plugin) call it: the client's own data ends
    /// the silence of `feedSilence`. The exported `pa_stream_write` forwards here.
    public static func write(
        _ stream: OpaquePointer?, _ data: UnsafeRawPointer?, _ length: Int,
        _ free: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?, _ offset: Int64, _ seek: Int32
    ) -> Int32 {
        guard let library = Library.shared else { return -noData }
        if isEnabled { streams.withLock { $0[address(of: stream)]?.clientWrote = true } }
        return library.write(stream, data, length, free, offset, seek)
    }
}
