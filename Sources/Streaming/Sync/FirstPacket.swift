// yt-gst — before a synchronised receiver starts: who sends, learned from the first packet.
import GstPlayer

/// The first RTP packet at a receiver's address: its sender (where the clock is published) and payload type.
struct FirstPacket {
    var sender: String
    var payloadType: Int

    /// How the wait ended when no packet came.
    enum Missing: Error {
        /// `timeout` passed.
        case timedOut
        /// `stopRequested` said to stop.
        case stopped(StopReason)
    }

    /// Listens where the receiver will (`port`, joining `group` on `interface` if given) until a packet that
    /// `accepting` takes for the stream's arrives (anyone can send anything to the port).
    /// The RTCP port (`port` + 1) is bound too, as the receiver's will be: from now on both are taken.
    /// `stopRequested` is asked every 100 ms.
    ///
    /// - Returns: the packet, or why none came.
    /// - Throws: `StreamingError.socket` for a port that cannot be opened (`url` names it).
    static func wait(
        port: Int, group: String?, interface: String?, timeout: Duration?, url: String,
        accepting: (UnsafeRawBufferPointer) -> Bool, stopRequested: () -> StopReason?
    ) throws(StreamingError) -> Result<FirstPacket, Missing> {
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline(
                launch: "udpsrc name=rtp ! appsink name=first sync=false max-buffers=1 drop=true "
                    + "udpsrc name=rtcp ! fakesink sync=false async=false")
            for (name, port) in [("rtp", port), ("rtcp", port + 1)] {
                let udp = try pipeline.element(named: name)
                try udp.set("port", fromString: String(port))
                if let group {
                    try udp.set("address", fromString: group)
                    if let interface { try udp.set("multicast-iface", fromString: interface) }
                }
            }
            try pipeline.setState(.playing)
        } catch {
            throw .socket(error, url: url, port: port)
        }
        defer { _ = try? pipeline.setState(.null) }
        let sink = try? pipeline.appSink(named: "first")
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            if let reason = stopRequested() { return .failure(.stopped(reason)) }
            if let deadline, ContinuousClock.now >= deadline { return .failure(.timedOut) }
            while let message = pipeline.nextMessage(timeout: .zero) {
                guard case .error(let error) = message else { continue }
                throw .socket(error, url: url, port: port)
            }
            guard let sample = sink?.pull(timeout: .milliseconds(100)), sample.bytes.withUnsafeBytes(accepting),
                let sender = sample.sourceAddress
            else { continue }
            return .success(FirstPacket(sender: sender, payloadType: Int(sample.bytes[1] & 0x7f)))
        }
    }
}
