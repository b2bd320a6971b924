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
    /// Whether the corpus tests run: the corpus is there, or it is required ($YT_GST_REQUIRE_CORPUS, set by
    /// `.ci/run`), in which case `rows()` throws and the tests fail instead of being skipped.
    public static var shouldRun: Bool { Paths.corpusAvailable || Paths.corpusRequired }

    /// Why a corpus test is skipped: the comment of its `.enabled(if: shouldRun, ...)` trait, which Swift Testing
    /// prints on the test's "skipped" line.
    public static let skipNote =
        "WAV corpus not found at \(Paths.corpus.path) (set YT_GST_WAV_CORPUS, or YT_GST_REQUIRE_CORPUS=1 to make"
        + " this a failure); corpus test skipped"

    /// Every row of manifest.tsv; throws when the corpus is not there (only reached when it is required).
    public static func rows() throws -> [CorpusRow] {
        guard Paths.corpusAvailable else {
            throw HarnessError(
                description: "YT_GST_REQUIRE_CORPUS is set but the WAV corpus is not at \(Paths.corpus.path)"
                    + " (no manifest.tsv; set YT_GST_WAV_CORPUS)")
        }
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

/// An invalid corpus file whose audio is intact, from Tests/corpus-intact-audio.tsv: a player that plays it must
/// give exactly the first `frames` frames of `sibling`, a valid corpus file with the same audio, or nothing when
/// there is no sibling (an empty data chunk, `frames` 0).
public struct IntactAudio: Sendable {
    public var path: String
    public var sibling: CorpusRow?
    public var frames: Int
    public var why: String
}

extension CorpusManifest {
    /// The table of played invalid files, shared with scripts/conformance.py.
    public static let intactAudioTable = Paths.packageRoot.appendingPathComponent("Tests/corpus-intact-audio.tsv")

    /// The table's entries by path. A sibling must be a valid row of the same format with a pcm_sha256, and
    /// `frames` must equal the manifest's lenient_frames where a lenient reader other than GStreamer (libsndfile,
    /// scipy) counted them.
    public static func intactAudio(rows: [CorpusRow]) throws -> [String: IntactAudio] {
        let byPath = Dictionary(rows.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        let text = try String(contentsOf: intactAudioTable, encoding: .utf8)
        var entries: [String: IntactAudio] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("path\t") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 4, let frames = Int(f[2]), let row = byPath[f[0]], !row.expectedValid else {
                throw HarnessError(description: "\(intactAudioTable.path): bad entry \(line)")
            }
            let sibling = byPath[f[1]]
            if let sibling {
                guard sibling.expectedValid, !sibling.pcmSHA256.isEmpty, row.effectiveTag == sibling.effectiveTag,
                    row.channels == sibling.channels, row.bitsPerSample == sibling.bitsPerSample
                else { throw HarnessError(description: "\(intactAudioTable.path): \(f[1]) is no sibling of \(f[0])") }
            } else if f[1] != "-" || frames != 0 {
                throw HarnessError(description: "\(intactAudioTable.path): bad entry \(line)")
            }
            let lenient = row.lenientFrames.split(separator: ":")
            if lenient.count == 2, lenient[0] != "gstreamer", Int(lenient[1]) != frames {
                throw HarnessError(description: "\(f[0]): \(frames) frames in the table, manifest \(row.lenientFrames)")
            }
            entries[f[0]] = IntactAudio(path: f[0], sibling: sibling, frames: frames, why: f[3])
        }
        return entries
    }

    /// The samples a played invalid file must give, as its data chunk stores them (little-endian): the sibling
    /// decoded by sox in its own encoding, checked against the sibling's pcm_sha256, cut to `frames`; none without
    /// a sibling. Neither the reader under test nor the file itself is involved, so a shifted or short read cannot
    /// agree with it.
    public static func intactSamples(_ entry: IntactAudio) throws -> [UInt8] {
        guard let sibling = entry.sibling else { return [] }
        let samples = try ReferenceDecoders.soxRaw(sibling.url.path)
        guard SHA256.hex(samples) == sibling.pcmSHA256, let blockAlign = sibling.blockAlign else {
            throw HarnessError(description: "sox's decode of \(sibling.path) does not match its pcm_sha256")
        }
        return Array(samples.prefix(entry.frames * blockAlign))
    }
}
