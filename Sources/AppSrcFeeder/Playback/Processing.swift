// yt-gst — the volume, tempo and level elements the player inserts.
import GstPlayer

/// Elements the player adds after the appsrc when something needs them: a volume control, scaletempo for rates
/// with pitch kept, and a level meter. Without them the samples reach the sink untouched.
public struct Processing: Sendable, Equatable {
    /// `volume name=volume`, which `setVolume` and `setMute` control.
    public var volume: Bool
    /// scaletempo, so rates other than 1 keep the pitch.
    public var tempo: Bool
    /// A level meter whose readings the status carries (`PlaybackSnapshot.levels`).
    public var level: Bool

    public init(volume: Bool = false, tempo: Bool = false, level: Bool = false) {
        self.volume = volume
        self.tempo = tempo
        self.level = level
    }

    /// `launch` with the elements asked for (and not already there) put right after `appsrc name=src`.
    public func inserted(into launch: String) -> String {
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
