// Writes the benchmarks' mixed property list (MixedDocument) to a file, so
// that whole programs can be compared on it:
// `plist-mixed xml|binary|json|openstep FILE` (JSON holds dates and data as
// text). Prints the object count and the size.
import Foundation
import MixedDocument
import PropertyList

let arguments = CommandLine.arguments
guard arguments.count == 3, let format: PropertyListFormat = ["xml": .xml, "binary": .binary, "json": .json, "openstep": .openStep][arguments[1]] else {
    FileHandle.standardError.write(Data("usage: plist-mixed xml|binary|json|openstep FILE\n".utf8))
    exit(2)
}
let document = format == .json ? jsonCompatible(makeDocument()) : makeDocument()
let bytes = try document.encoded(as: format)
try Data(bytes).write(to: URL(fileURLWithPath: arguments[2]))
print("\(objectCount(document)) objects, \(bytes.count) bytes")
