
/// An error of the backend, with the HTTP status it maps to.
package struct BackendError: Error, CustomStringConvertible {
    package var status: Int
    package var message: String
    package init(status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
    package var description: String { message }
}
