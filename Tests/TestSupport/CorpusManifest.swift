// yt-gst — the shared WAV corpus's manifest.tsv, one row per file, with the oracles' expectations.
import Foundation

public struct CorpusRow: Sendable, CustomStringConvertible {
    public var path: String
    public var expectedValid: Bool
    /// The effective tag: the sub-format for extensible files (e.g. 1 for "0xFFFE extensible sub=0x0001 PCM").
    public var effectiveTag: UInt16?
    public var formatTagText: String
    public var channels: Int?
    public var sampleRate: Int?
    public var bitsPerSample: Int?
    public var blockAlign: Int?
    public var frames: Int64?
    public var container: String
    public var notes: String
    public var pcmSHA256: String
    public var decodedS16SHA256: String
    public var lenientFrames: String
    public var libsndfileSubtype: String
    public var url: URL

    /// PCM or IEEE float, directly or through WAVE_FORMAT_EXTENSIBLE. A sub-format the manifest's header walker
    /// could not name (the RIFX extensible file stores its GUID big-endian) counts when libsndfile read raw samples.
    public var isPCMOrFloat: Bool {
        effectiveTag == 1 || effectiveTag == 3
            || ["PCM_U8", "PCM_S8", "PCM_16", "PCM_24", "PCM_32", "FLOAT", "DOUBLE"].contains(libsndfileSubtype)
    }

    /// A short label for the counts by variant: "RIFF PCM 16", "RIFX float 32", "RIFF IMA ADPCM".
    public var variant: String {
        let name = formatTagText.split(separator: " ").dropFirst().joined(separator: " ")
        if isPCMOrFloat {
            return "\(container) \(effectiveTag == 3 ? "float" : "PCM") \(bitsPerSample.map(String.init) ?? "?")"
                + (formatTagText.hasPrefix("0xFFFE") ? " ext" : "")
        }
        return "\(container) \(name.isEmpty ? "no fmt" : name)"
    }

    public var description: String { path }
}

public enum CorpusManifest {
    /// Why a corpus suite is skipped, printed once by the suites that need it.
    public static let skipNote =
        "WAV corpus not found at \(Paths.corpus.path) (set YT_GST_WAV_CORPUS); corpus suite skipped"

    /// Every row of manifest.tsv, or [] when the corpus is not there.
    public static func rows() throws -> [CorpusRow] {
        guard Paths.corpusAvailable else { return [] }
        let text = try String(contentsOf: Paths.corpus.appendingPathComponent("manifest.tsv"), encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
        let header = lines.removeFirst()
        func column(_ name: String) -> Int { header.firstIndex(of: name)! }
        let c = (
            path: column("path"), valid: column("expected_valid"), tag: column("format_tag"),
            channels: column("channels"), rate: column("sample_rate"), bits: column("bits_per_sample"),
            align: column("block_align"), frames: column("frames"), container: column("container"),
            notes: column("notes"), pcm: column("pcm_sha256"), s16: column("decoded_s16_sha256"),
            lenient: column("lenient_frames"), subtype: column("libsndfile_subtype")
        )
        return lines.map { f in
            let tagText = f[c.tag]
            return CorpusRow(
                path: f[c.path], expectedValid: f[c.valid] == "yes", effectiveTag: effectiveTag(tagText),
                formatTagText: tagText, channels: Int(f[c.channels]), sampleRate: Int(f[c.rate]),
                bitsPerSample: Int(f[c.bits]), blockAlign: Int(f[c.align]), frames: Int64(f[c.frames]),
                container: f[c.container], notes: f[c.notes], pcmSHA256: f[c.pcm], decodedS16SHA256: f[c.s16],
                lenientFrames: f[c.lenient], libsndfileSubtype: f[c.subtype],
                url: Paths.corpus.appendingPathComponent(f[c.path]))
        }
    }

    /// "0x0001 PCM" → 1; "0xFFFE extensible sub=0x0003 IEEE float" → 3; "" → nil.
    public static func effectiveTag(_ text: String) -> UInt16? {
        if let range = text.range(of: "sub=0x") {
            return UInt16(text[range.upperBound...].prefix(4), radix: 16)
        }
        guard text.hasPrefix("0x") else { return nil }
        return UInt16(text.dropFirst(2).prefix(4), radix: 16)
    }
}
