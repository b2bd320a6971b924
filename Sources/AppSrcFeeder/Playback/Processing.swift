// yt-gst — the volume, tempo and level elements the player inserts.
import GstPlayer

/// Elements the player adds after the appsrc when something needs them: a volume control, scaletempo for rates
/// with pitch kept, and a level meter. Without them the samples reach the sink untouched.
struct Processing: Equatable {
    var volume: Bool
    var tempo: Bool
    var level: Bool

    func inserted(into launch: String) -> String {
        let present = Launch.elements(in: launch)
        let hasTempo = present.contains { $0.factory == "scaletempo" }
        func named(_ name: String) -> Bool { present.contains { $0.value(of: "name") == name } }
        var elements: [String] = []
        if tempo && !hasTempo { elements += ["scaletempo", "audioconvert"] }
        if volume && !named("volume") { elements.append("volume name=volume") }
        if level && !named("level") { elements.append("level name=level interval=100000000") }
        guard !elements.isEmpty else { return launch }
        let fragment = "audioconvert ! " + elements.joined(separator: " ! ") + " ! audioconvert"
        return Launch.inserting(fragment, afterSource: "src", in: launch)
    }
}
