import Crypto
import Foundation

enum Fixtures {
    /// A fresh APNs-style auth key (.p8 is PKCS#8 PEM of a P-256 key).
    static func p8() -> String { P256.Signing.PrivateKey().pemRepresentation }

    static func createAppJSON(
        name: String = "Demo", bundleID: String = "com.example.demo", pem: String = p8(), extra: String = ""
    ) -> String {
        let apns: [String: Any] = [
            "team_id": "TEAM123456", "key_id": "KEY1234567", "private_key": pem, "environment": "development",
        ]
        var body: [String: Any] = ["name": name, "bundle_id": bundleID, "apns": apns]
        if !extra.isEmpty { body["extra"] = extra }
        return String(decoding: try! JSONSerialization.data(withJSONObject: body), as: UTF8.self)
    }
}
