/** A throwaway TLS pair for tests' local HTTPS servers (the install's own generator). */
export { selfSignedCertificate } from "../../scripts/lib/install/tls.ts";
