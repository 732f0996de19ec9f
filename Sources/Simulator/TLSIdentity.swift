import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// The simulator's TLS identity, generated at start: a local CA and a certificate for `localhost` and 127.0.0.1.
/// Clients are told to trust it (`make run` writes it to `.data/sim-ca.pem`).
public struct TLSIdentity: Sendable {
    /// The CA certificate (PEM) that clients trust.
    public let certificatePEM: String
    let caCertificate: NIOSSLCertificate
    let certificate: NIOSSLCertificate
    let privateKey: NIOSSLPrivateKey

    /// A throwaway CA and a server certificate it signs; `certificatePEM` is the CA, the one to trust.
    public static func generate(hosts: [String] = ["localhost"], ips: [[UInt8]] = [[127, 0, 0, 1]]) throws
        -> TLSIdentity
    {
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName {
            CommonName("apns-sim local CA")
            OrganizationName("live-activities-gateway simulator")
        }
        let ca = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(caKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(365 * 24 * 3600),
            issuer: caName,
            subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(caKey)
        )
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("localhost") }
        let leaf = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(365 * 24 * 3600),
            issuer: caName,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(
                    hosts.map { .dnsName($0) } + ips.map { .ipAddress(ASN1OctetString(contentBytes: $0[...])) })
            },
            issuerPrivateKey: Certificate.PrivateKey(caKey)
        )
        let caPEM = try ca.serializeAsPEM().pemString
        return TLSIdentity(
            certificatePEM: caPEM,
            caCertificate: try NIOSSLCertificate(bytes: Array(caPEM.utf8), format: .pem),
            certificate: try NIOSSLCertificate(bytes: Array(try leaf.serializeAsPEM().pemString.utf8), format: .pem),
            privateKey: try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem)
        )
    }

    func serverContext() throws -> NIOSSLContext {
        try NIOSSLContext(configuration: self.serverConfiguration)
    }

    /// TLS 1.2 or later, HTTP/2 only (ALPN `h2`), as APNs.
    var serverConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(self.certificate)], privateKey: .privateKey(self.privateKey))
        configuration.applicationProtocols = ["h2"]
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }

    /// Trust roots for a client that should accept this simulator.
    public var trustRoots: NIOSSLTrustRoots { .certificates([self.caCertificate]) }
}
