// yt-gst — Stream.Control and Stream.SetProperty: the sender's playlist steered for every room at once.

extension HubService {
    /// Stream.Control {id, command, params}: play, pause, playPause, stop, next, previous, seek {offset} and
    /// setPosition {position} (seconds), in any capitalisation.
    func controlStream(_ params: Params) throws(JSONRPCError) -> JSONValue {
        try checkStream(params)
        let model = stream.model
        let arguments = try params.object("params", optional: true)
        switch try params.string("command").lowercased() {
        case "play": model.setPaused(false)
        case "pause": model.setPaused(true)
        case "playpause": model.setPaused(!model.paused)
        case "stop": model.stop()
        case "next": model.skip(by: 1)
        case "previous": model.skip(by: -1)
        case "seek": model.seek(by: try params.seconds("offset", of: arguments))
        case "setposition": model.seek(to: try params.seconds("position", of: arguments))
        default:
            throw .invalidParams("command must be play, pause, playPause, stop, next, previous, seek or setPosition")
        }
        return "ok"
    }

    /// Stream.SetProperty {id, property, value}: loopStatus (none, track, playlist), shuffle, volume (0-100).
    func setStreamProperty(_ params: Params) throws(JSONRPCError) -> JSONValue {
        try checkStream(params)
        let model = stream.model
        switch try params.string("property") {
        case "loopStatus":
            guard let mode = params.value["value"]?.string.flatMap(LoopMode.init(rawValue:)) else {
                throw .invalidParams("loopStatus must be none, track or playlist")
            }
            model.setLoop(mode)
        case "shuffle": model.setShuffle(try params.bool("value"))
        case "volume": model.setVolume(percent: try params.integer("value", in: VolumePercent.range))
        case let other: throw .invalidParams("property \(other) cannot be set (loopStatus, shuffle, volume)")
        }
        return "ok"
    }

    private func checkStream(_ params: Params) throws(JSONRPCError) {
        guard try params.string("id") == stream.id else { throw .invalidParams("Stream not found") }
    }
}
