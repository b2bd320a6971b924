// yt-gst — file names sorted the way people count.

/// "track2" before "track10": digit runs compare as numbers, letters without regard to case.
public enum NaturalOrder {
    public static func less(_ a: String, _ b: String) -> Bool {
        var i = a.unicodeScalars.makeIterator()
        var j = b.unicodeScalars.makeIterator()
        var x = i.next()
        var y = j.next()
        while let cx = x, let cy = y {
            if cx.properties.numericType != nil && cx.isASCII && cy.isASCII && cy.properties.numericType != nil {
                var nx = "", ny = ""
                while let c = x, c.isASCII, c.properties.numericType != nil {
                    nx.unicodeScalars.append(c); x = i.next()
                }
                while let c = y, c.isASCII, c.properties.numericType != nil {
                    ny.unicodeScalars.append(c); y = j.next()
                }
                let vx = nx.drop(while: { $0 == "0" }), vy = ny.drop(while: { $0 == "0" })
                if vx.count != vy.count { return vx.count < vy.count }
                if vx != vy { return vx < vy }
                continue
            }
            let lx = Character(cx).lowercased(), ly = Character(cy).lowercased()
            if lx != ly { return lx < ly }
            x = i.next()
            y = j.next()
        }
        return x == nil && y != nil
    }
}
