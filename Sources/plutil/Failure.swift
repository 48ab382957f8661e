/// One file's failure, printed as `file: message`.
struct Failure: Error {
    let message: String
}
