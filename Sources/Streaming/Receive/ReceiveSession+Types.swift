// yt-gst — what a receive session is given, what it reports, the commands it takes and how it ends.
import GstPlayer

extension ReceiveSession {
    /// Everything a receiver needs, as plain values.
    public struct Configuration: Sendable {
        /// Where to listen (rtp://@:PORT, rtp://@GROUP:PORT), an SDP file, or an SRT caller or listener.
        public var source: StreamURL
        /// RTP: from sending to sound, the same on every receiver (default 80 ms); unsynchronised, the jitter
        /// buffer's (default 50 ms). SRT: its latency (default 125 ms).
        public var latencyMilliseconds: Int?
        /// Plays this receiver later (negative: earlier) than the shared instant; synchronised RTP only.
        public var delayMilliseconds = 0
        /// Whether RTP plays in step with the sender's clock; on `clock` (nil: the SDP's, else the sender's).
        public var synchronised = true
        public var clock: ReferenceClock?
        /// No data for this long ends the stream (`Ending.Reason.timedOut`); nil: wait for ever.
        public var timeout: Duration?
        /// The network interface to join a multicast group on.
        public var interface: String?
        /// A launch description that takes the decoded audio (e.g. "audioconvert ! pulsesink device=kitchen");
        /// nil: the default output (`ReceiveSession.defaultOutput`).
        public var output: String?
        /// Properties set on every sink of the output that has them (e.g. ["device": "kitchen"]).
        public var sinkProperties: [String: String] = [:]
        /// How often `Event.status` is sent; nil: never.
        public var statusInterval: Duration?
        /// How often at most `Event.packetsLost` is sent when packets were lost; nil: never.
        public var lossReportInterval: Duration?
        /// Whether the threads the session starts run with realtime scheduling where the system allows it
        /// (`RealtimeThreads`): its output keeps playing beside a CPU hog.
        public var realtimeThreads = true

        public init(source: StreamURL) { self.source = source }
    }

    /// What the session reports, on the thread that runs it, to its observer.
    public enum Event: Sendable {
        /// At `statusInterval`: what it does and has counted.
        case status(Status)
        case warning(StreamingWarning)
        /// Packets lost so far (at most once per `lossReportInterval`, when the count grew).
        case packetsLost(Int)
        /// The followed clock stopped answering: playback goes on, on its last estimate.
        case clockLost
        /// It answers again.
        case clockRegained
        /// An error the session goes on after (an SRT error while the output is being finalised).
        case problem(StreamingError)
        /// The stream's title, from a title tag that came with it (a sender's file's LIST/INFO over SRT).
        case title(String)
        /// A synchronised RTP receiver learned its sender's address from the first packet (where its clock, and
        /// its control service, are).
        case senderFound(address: String)
    }

    /// A status tick.
    public struct Status: Sendable {
        public enum State: Sendable { case waiting, receiving, finishing }
        public var state: State
        public var stats: ReceiveStats
        /// The sync state (clock offset and round trip, output drift and corrections); nil when not synchronised.
        public var sync: SyncSummary?
    }

    /// What a caller can ask of a running session.
    public enum Command: Sendable {
        /// Output volume, 1 for the received level (0 to 10).
        case setVolume(Double)
        case setMute(Bool)
        /// Moves a synchronised receiver's output by this many ms from the shared instant, live (it realigns once).
        case setDelay(milliseconds: Int)
        /// Ends the stream: the output is finalised with what arrived.
        case stop(StopReason)
    }

    /// Sends commands to the session from any thread; each wakes its loop.
    public struct Control: Sendable {
        let queue: CommandQueue<Command>

        public func setVolume(_ volume: Double) { queue.send(.setVolume(volume)) }
        public func setMute(_ muted: Bool) { queue.send(.setMute(muted)) }
        public func setDelay(milliseconds: Int) { queue.send(.setDelay(milliseconds: milliseconds)) }
        public func stop(_ reason: StopReason = .requested) { queue.send(.stop(reason)) }
    }

    /// How the session ended.
    public struct Ending: Sendable {
        public enum Reason: Equatable, Sendable {
            /// The sender said it finished (RTCP BYE, the end of the SRT stream).
            case senderFinished
            /// No data for `Configuration.timeout`.
            case timedOut
            case stopped(StopReason)
            /// `failure` stopped the stream.
            case failed
        }

        public var reason: Reason
        /// The error that ended the stream, or that kept the output from being finalised.
        public var failure: StreamingError? = nil
        /// Whether the output was finalised (an end of stream reached it); false when nothing arrived, or it ended
        /// before the pipeline ran.
        public var finalised: Bool
        /// The counts at the end; nil when it ended before the pipeline ran (waiting for the first packet).
        public var stats: ReceiveStats? = nil
        public var sync: SyncSummary? = nil
    }
}
