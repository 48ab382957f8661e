#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList

/// The bytes macOS stores for a URL in defaults: an `NSKeyedArchiver`
/// binary property list of an `NSURL` (`NS.relative`, `NS.base`), so that a
/// preferences file moved between a Mac and Linux keeps its URLs.
enum URLArchive {
    static func encode(_ url: URL) -> Data {
        let archive: PropertyList = [
            "$version": 100000,
            "$archiver": "NSKeyedArchiver",
            "$top": ["root": .uid(1)],
            "$objects": [
                "$null",
                ["NS.base": .uid(0), "NS.relative": .uid(2), "$class": .uid(3)],
                .string(url.absoluteString),
                ["$classname": "NSURL", "$classes": ["NSURL", "NSObject"]],
            ],
        ]
        return try! archive.data(as: .binary)
    }

    static func decode(_ data: Data) -> URL? {
        guard let archive = try? PropertyList(decoding: data),
            archive["$archiver"] == "NSKeyedArchiver",
            case .array(let objects)? = archive["$objects"],
            case .uid(let root)? = archive["$top"]?["root"]
        else { return nil }
        return url(at: root, objects, depth: 0)
    }

    private static func url(at index: UInt64, _ objects: [PropertyList], depth: Int) -> URL? {
        guard depth < 16, index < objects.count, case .dictionary(let object) = objects[Int(index)],
            case .uid(let relativeIndex)? = object["NS.relative"], relativeIndex < objects.count,
            case .string(let relative) = objects[Int(relativeIndex)]
        else { return nil }
        if case .uid(let base)? = object["NS.base"], base != 0, let baseURL = url(at: base, objects, depth: depth + 1) {
            return URL(string: relative, relativeTo: baseURL)
        }
        return URL(string: relative)
    }
}
