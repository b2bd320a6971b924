// yt-gst — what an HTTP receive session is given, what it reports, the commands it takes and how it ends.
import GstPlayer

extension HTTPReceiveSession {
    /// Everything an HTTP receiver needs, as plain values.
    public struct Configuration: Sendable {
        /// http(s)://HOST:PORT/MOUNT, or an HLS playlist (.m3u8).
        public var url: String
        /// How long to keep reconnecting after the connection drops, and how long without data ends the stream:
        /// also how long after a broadcast's end the session ends, since only a mount that stays gone has ended.
        public var timeout: Duration = .seconds(5)
        /// A launch description that takes the decoded audio; nil: the default output
        /// (`ReceiveSession.defaultOutput`).
        public var output: String?
        /// How often `Event.status` is sent; nil: never.
        public var statusInterval: Duration?

        public init(url: String) { self.url = url }

        /// An HLS playlist: hlsdemux follows it (a live one is reloaded by itself) and its end is the stream's end.
        public var isHLS: Bool {
            (url.split(separator: "?").first.map(String.init) ?? url).lowercased().hasSuffix(".m3u8")
        }

        /// The server's host and port, from the URL (default 80, or 443 for https); nil without a host.
        public var server: (host: String, port: Int)? {
            guard let schemeEnd = url.firstRange(of: "://"),
                var authority = url[schemeEnd.upperBound...].split(separator: "/", omittingEmptySubsequences: false)
                    .first.map(String.init), !authority.isEmpty
            else { return nil }
            if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
            let secure = url.lowercased().hasPrefix("https")
            if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
                let host = String(authority[authority.index(after: authority.startIndex)..<close])
                let port = Int(authority[close...].dropFirst(2)) ?? (secure ? 443 : 80)
                return (host, port)
            }
            let parts = authority.split(separator: ":", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? Int(parts[1]) ?? 0 : (secure ? 443 : 80))
        }
    }

    /// What the session reports, on the thread that runs it, to its observer.
    public enum Event: Sendable {
        case status(Status)
        /// The stream's title ("ARTIST - TITLE"), when it changes.
        case titleChanged(String)
        case warning(StreamingWarning)
        /// The connection dropped after audio arrived: the session reconnects.
        case connectionDropped
        /// Audio flows again, this long after the drop.
        case reconnected(after: Duration)
        /// An error after audio arrived, taken as a dropped connection.
        case problem(StreamingError)
    }

    /// A status tick.
    public struct Status: Sendable {
        public enum State: Sendable { case connecting, receiving, reconnecting }
        public var state: State
        /// The audio received so far.
        public var received: ClockTime
        public var title: String?
    }

    public enum Command: Sendable {
        /// Ends the stream: the output is finalised with what arrived.
        case stop(StopReason)
    }

    /// Sends commands to the session from any thread; each wakes its loop.
    public struct Control: Sendable {
        let queue: CommandQueue<Command>

        public func stop(_ reason: StopReason = .requested) { queue.send(.stop(reason)) }
    }

    /// How the session ended.
    public struct Ending: Sendable {
        public enum Reason: Equatable, Sendable {
            /// The stream ended by itself (the pipeline's end of stream).
            case finished
            /// The broadcast ended: the mount stayed gone (404) for the timeout, or the HLS playlist ended.
            case streamEnded
            /// The connection dropped and the server could not be reached again within the timeout.
            case connectionLost
            /// No data for the timeout.
            case timedOut
            case stopped(StopReason)
        }

        public var reason: Reason
        /// The audio received when it was decided to end.
        public var received: Duration

        init(_ reason: Reason, _ received: Duration) {
            self.reason = reason
            self.received = received
        }
    }

    /// The HTTP source and decoder (restarted on a reconnect) apart from the output, which stays; each new decoder
    /// pad is linked to `received`, whose end of stream is held back until the session ends.
    func makePipeline() throws(StreamingError) -> Pipeline {
        Gst.initialize()
        if configuration.output == nil && Gst.audioOutputs().isEmpty { throw .noAudioOutput }
        let output = configuration.output ?? ReceiveSession.defaultOutput
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline(
                launch: "souphttpsrc name=net ! decodebin name=decode identity name=received silent=true ! \(output)")
        } catch {
            throw .launch(error, output: output)
        }
        do {
            let net = try pipeline.element(named: "net")
            try net.set("location", to: configuration.url)
            // ICY metadata (Icecast's MP3 titles) becomes tags instead of noise in the audio.
            try net.set("iradio-mode", to: true)
            let seconds = configuration.timeout / .seconds(1)
            // souphttpsrc takes 1 to 3600 s (a longer value was ignored, leaving its 15 s).
            try net.set("timeout", to: min(3600, max(1, Int(seconds.rounded(.up)))))
            let received = try pipeline.element(named: "received")
            try pipeline.element(named: "decode").linkEachNewPad(to: received, pad: "sink")
            received.holdEndOfStream(onPad: "sink", postingMessage: ApplicationMessage.sourceEnded.rawValue)
        } catch {
            _ = try? pipeline.setState(.null)
            throw .stream(error, url: configuration.url)
        }
        return pipeline
    }
}
