// yt-gst — decoding metadata chunk bodies (all reads bounds-checked; the bodies are at most 64 KiB).

extension WAVMetadata {
    /// Text of a fixed-size or NUL-terminated field: up to the first NUL, trailing spaces dropped; UTF-8 when the
    /// bytes are valid UTF-8, else Latin-1 (what most Windows tools wrote).
    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        let field = bytes.prefix { $0 != 0 }
        var text: String
        if let utf8 = String(validating: field, as: UTF8.self) {
            text = utf8
        } else {
            text = String(String.UnicodeScalarView(field.map { Unicode.Scalar($0) }))
        }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text
    }

    /// Sub-chunks of a LIST body after its 4-byte type: (id, body) pairs, walked with pad bytes, bounded.
    static func subChunks(_ body: [UInt8], byteOrder: ByteOrder) -> [(id: FourCC, body: ArraySlice<UInt8>)] {
        var result: [(id: FourCC, body: ArraySlice<UInt8>)] = []
        var at = 4
        while at + 8 <= body.count, result.count < maxItems {
            let id = FourCC(body, at: at)
            let size = Int(byteOrder.uint32(body, at: at + 4))
            let start = at + 8
            let end = start + min(size, body.count - start)
            result.append((id, body[start..<end]))
            guard size <= body.count - start else { break }
            at = end + (size & 1)
        }
        return result
    }

    /// LIST/INFO: one entry per printable sub-chunk id.
    mutating func readInfo(_ body: [UInt8], byteOrder: ByteOrder) {
        for (id, value) in Self.subChunks(body, byteOrder: byteOrder) where id.isPrintable {
            guard info.count < Self.maxItems else { return }
            info.append(InfoEntry(id: id.display, value: Self.text(value)))
        }
    }

    /// LIST/adtl: labels, notes and labelled text regions for cue points (matched by cue id).
    mutating func readAssociatedData(_ body: [UInt8], byteOrder: ByteOrder) {
        for (id, entry) in Self.subChunks(body, byteOrder: byteOrder) where entry.count >= 4 {
            let bytes = Array(entry)
            let cueID = byteOrder.uint32(bytes, at: 0)
            let index =
                cuePoints.firstIndex { $0.id == cueID }
                ?? {
                    guard cuePoints.count < Self.maxItems else { return nil }
                    cuePoints.append(CuePoint(id: cueID, position: 0))
                    return cuePoints.count - 1
                }()
            guard let index else { continue }
            switch id {
            case FourCC("labl"): cuePoints[index].label = Self.text(entry.dropFirst(4))
            case FourCC("note"): cuePoints[index].note = Self.text(entry.dropFirst(4))
            case FourCC("ltxt") where bytes.count >= 20:
                cuePoints[index].length = byteOrder.uint32(bytes, at: 4)
                let text = Self.text(entry.dropFirst(20))
                if !text.isEmpty, cuePoints[index].label == nil { cuePoints[index].label = text }
            default: break
            }
        }
    }

    /// `cue `: a count, then 24-byte points (id, position, chunk id, chunk start, block start, sample offset).
    mutating func readCue(_ body: [UInt8], byteOrder: ByteOrder) {
        guard body.count >= 4 else { return }
        let count = min(Int(byteOrder.uint32(body, at: 0)), (body.count - 4) / 24)
        for point in 0..<count {
            let at = 4 + point * 24
            let id = byteOrder.uint32(body, at: at)
            let position = byteOrder.uint32(body, at: at + 20)
            if let index = cuePoints.firstIndex(where: { $0.id == id }) {
                cuePoints[index].position = position
            } else if cuePoints.count < Self.maxItems {
                cuePoints.append(CuePoint(id: id, position: position))
            }
        }
    }

    /// `smpl`: the 36-byte header and as many 24-byte loops as are really there.
    mutating func readSampler(_ body: [UInt8], byteOrder: ByteOrder) {
        guard body.count >= 36 else { return }
        let count = min(Int(byteOrder.uint32(body, at: 28)), (body.count - 36) / 24, Self.maxItems)
        let loops = (0..<count).map { loop in
            let at = 36 + loop * 24
            return Loop(
                id: byteOrder.uint32(body, at: at), type: byteOrder.uint32(body, at: at + 4),
                start: byteOrder.uint32(body, at: at + 8), end: byteOrder.uint32(body, at: at + 12),
                fraction: byteOrder.uint32(body, at: at + 16), playCount: byteOrder.uint32(body, at: at + 20))
        }
        sampler = Sampler(
            manufacturer: byteOrder.uint32(body, at: 0), product: byteOrder.uint32(body, at: 4),
            samplePeriod: byteOrder.uint32(body, at: 8), midiUnityNote: byteOrder.uint32(body, at: 12),
            midiPitchFraction: byteOrder.uint32(body, at: 16), loops: loops)
    }

    /// `inst`: seven bytes (unshifted note, fine tune, gain, note and velocity ranges).
    mutating func readInstrument(_ body: [UInt8]) {
        guard body.count >= 7 else { return }
        instrument = Instrument(
            unshiftedNote: Int(body[0]), fineTune: Int(Int8(bitPattern: body[1])), gain: Int(Int8(bitPattern: body[2])),
            lowNote: Int(body[3]), highNote: Int(body[4]), lowVelocity: Int(body[5]), highVelocity: Int(body[6]))
    }

    /// `bext` (EBU Tech 3285): fixed fields up to byte 602, then the coding history.
    mutating func readBroadcast(_ body: [UInt8], byteOrder: ByteOrder) {
        guard body.count >= 348 else { return }
        let timeLow = UInt64(byteOrder.uint32(body, at: 338))
        let timeHigh = UInt64(byteOrder.uint32(body, at: 342))
        broadcast = Broadcast(
            description: Self.text(body[0..<256]), originator: Self.text(body[256..<288]),
            originatorReference: Self.text(body[288..<320]), originationDate: Self.text(body[320..<330]),
            originationTime: Self.text(body[330..<338]),
            timeReference: byteOrder == .big ? timeLow << 32 | timeHigh : timeHigh << 32 | timeLow,
            version: Int(byteOrder.uint16(body, at: 346)),
            codingHistory: body.count > 602 ? Self.text(body[602...]) : "")
    }
}
