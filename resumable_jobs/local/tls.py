"""A throwaway TLS certificate for local stand-ins that clients can only reach over https.

What it is for: some upstream hooks build ``https://`` URLs whatever the connection says (the dbt
Cloud hook's ``https://{tenant}/api/...``), so the stand-in they talk to must speak TLS, and the
real clients - ``requests`` in a worker, ``aiohttp`` in the triggerer - must trust it without
turning verification off.

How it works: :meth:`LocalCertificate.create` generates a key and a self-signed certificate for
``127.0.0.1`` and ``localhost`` (a CA certificate, so it is its own trust anchor) in a directory.
The stand-in serves with :meth:`LocalCertificate.server_context`. Clients trust it through
:meth:`LocalCertificate.bundle`: the public roots (certifi's) plus this certificate, which is
what ``REQUESTS_CA_BUNDLE`` and ``SSL_CERT_FILE`` point at in the processes of a deployment -
other https traffic of those processes keeps verifying against the public roots. A process that
already built its default contexts (a test run) adds the certificate with
:meth:`LocalCertificate.trust_in`.

What it does not do: the key never leaves the directory, is valid for a day, and names no host
but the loopback one; nothing here contacts anything.
"""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LocalCertificate"]


@dataclass(frozen=True)
class LocalCertificate:
    """A certificate and its key on disk (see the module docstring)."""

    cert_file: Path
    key_file: Path

    @classmethod
    def create(cls, directory: Path) -> LocalCertificate:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID

        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "resumable-jobs local stand-in")])
        now = datetime.datetime.now(datetime.timezone.utc)
        public = key.public_key()
        certificate = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(public)
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(
                x509.SubjectAlternativeName(
                    [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
                ),
                critical=False,
            )
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    key_cert_sign=True,
                    crl_sign=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(public), critical=False)
            .sign(key, hashes.SHA256())
        )
        directory.mkdir(parents=True, exist_ok=True)
        cert_file, key_file = directory / "standin-cert.pem", directory / "standin-key.pem"
        cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
        key_file.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
        key_file.chmod(0o600)
        return cls(cert_file, key_file)

    def server_context(self) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert_file, self.key_file)
        return context

    def client_context(self) -> ssl.SSLContext:
        """A verifying client context that trusts this certificate only."""
        return ssl.create_default_context(cafile=str(self.cert_file))

    def bundle(self, path: Path) -> Path:
        """Write the public roots plus this certificate to ``path`` (for REQUESTS_CA_BUNDLE / SSL_CERT_FILE)."""
        import certifi

        roots = Path(certifi.where()).read_text()
        path.write_text(roots.rstrip("\n") + "\n" + self.cert_file.read_text())
        return path

    def trust_in(self, *contexts: ssl.SSLContext) -> None:
        """Add this certificate to contexts a process already built (aiohttp builds its own at import)."""
        for context in contexts:
            context.load_verify_locations(cafile=str(self.cert_file))
