// The sync protocol's types (wire messages, limits, errors) live in
// `UbiquityProtocol`, which the server shares; clients keep seeing them here.
@_exported import UbiquityProtocol
