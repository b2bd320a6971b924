// yt-gst — `receive` as a room of the sender's control service: its options, its kept settings, its client.
import Control
import Streaming

extension ReceiveCommand {
    /// The room's options for a synchronised RTP receiver (it learns its sender from the first packet); for
    /// others none, and asking for one is a usage error.
    static func room(
        _ arguments: ParsedArguments, source: StreamURL, synchronised: Bool
    ) throws(UsageError) -> RoomOptions? {
        let registers: Bool
        if case .srt = source { registers = false } else { registers = synchronised }
        guard registers else {
            if let given = ["name", "control-port", "control-token"].first(where: { arguments.value($0) != nil }) {
                throw UsageError("--\(given) applies to synchronised RTP receivers (they register with the sender)")
            }
            return nil
        }
        return try RoomOptions(arguments)
    }

    /// The room's identity; its kept delay is the session's start value unless --delay-ms says otherwise (then
    /// that is what the room tells the hub).
    func startingIdentity(
        _ room: RoomOptions, configuration: inout ReceiveSession.Configuration
    ) -> RoomIdentity {
        var identity = room.identity()
        if delayGiven {
            identity.config.latency = delayMilliseconds
        } else {
            let latency = latency ?? ReceiverSync.defaultLatencyMilliseconds
            let earliest = -ReceiverSync.earliestDelayMilliseconds(latency: latency)
            configuration.delayMilliseconds = max(identity.config.latency, earliest)
        }
        return identity
    }

    func makeRoomClient(_ room: RoomOptions, identity: RoomIdentity, model: ReceiveModel) -> RoomClient {
        RoomClient(
            identity: identity, model: model, port: room.port, token: room.token,
            log: verbose ? { Terminal.error($0) } : nil, warn: { Terminal.error($0) })
    }
}
