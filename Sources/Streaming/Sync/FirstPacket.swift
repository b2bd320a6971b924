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

    /// Waits on the socket of `source`, the receiver's RTP `udpsrc` (bound: its pipeline is READY, or PAUSED with its output open), until a packet
    /// that `accepting` takes for the stream's arrives (anyone can send anything to the port), and leaves it there:
    /// it and every packet after it stay queued on the socket until the pipeline plays, so the receiver, once it
    /// has the sender's clock, places them by their RTP time and loses nothing of the stream's start. Packets not
    /// accepted are dropped. Sleeps until a packet or a command comes (`stopRequested` is asked on each wake-up).
    ///
    /// - Returns: the packet, or why none came.
    static func wait(
        on source: Element, timeout: Duration?,
        accepting: (UnsafeRawBufferPointer) -> Bool, stopRequested: () -> StopReason?
    ) -> Result<FirstPacket, Missing> {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        let socket = source.socketDescriptor
        while true {
            if let reason = stopRequested() { return .failure(.stopped(reason)) }
            if let deadline, ContinuousClock.now >= deadline { return .failure(.timedOut) }
            while let packet = source.peekDatagram() {
                if packet.bytes.withUnsafeBytes(accepting), let sender = packet.sourceAddress {
                    return .success(FirstPacket(sender: sender, payloadType: Int(packet.bytes[1] & 0x7f)))
                }
                source.discardDatagram()
            }
            MainLoop.wait(for: [socket], until: deadline)
        }
    }
}
