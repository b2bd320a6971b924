// yt-gst — a synchronised receiver's state in words: "in sync, clock ±12 µs, output +95 ppm (40 corrections)".

/// The status line's and summary's words for a synchronised receiver.
extension SyncSummary {
    public var text: String {
        var parts: [String] = []
        // Without an audio sink to align (a sink that only synchronises, like fakesink), the clock is all.
        if clock.lost {
            parts.append("clock lost, on last estimate")
        } else {
            parts.append(output == nil || output?.phase == .following ? "in sync" : "syncing")
        }
        if let offset = clock.offset {
            parts.append(
                "clock \(SyncSummary.signed(offset)) µs" + (clock.roundTrip.map { " (rtt \(Int($0)) µs)" } ?? ""))
        }
        if let drift = output?.drift {
            parts.append("output \(SyncSummary.signed(drift)) ppm")
        }
        if let corrections = output?.corrections, corrections > 0 { parts.append("\(corrections) corrections") }
        if onGraphCycles { parts.append("placed by PipeWire's cycles") }
        return parts.joined(separator: ", ")
    }

    private static func signed(_ value: Double) -> String {
        let rounded = Int(value.rounded())
        return rounded > 0 ? "+\(rounded)" : "\(rounded)"
    }
}
