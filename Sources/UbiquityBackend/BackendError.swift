package import UbiquityProtocol

/// An error of the backend, with the HTTP status it maps to.
package struct BackendError: Error, CustomStringConvertible {
    package var status: Int
    package var message: String
    /// The answer's machine-readable reason, when it has one.
    package var code: UbiquityWireErrorCode?
    package init(status: Int, _ message: String, code: UbiquityWireErrorCode? = nil) {
        self.status = status
        self.message = message
        self.code = code
    }
    package var description: String { message }
}
