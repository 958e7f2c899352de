/**
 * The Digital Credentials API protocol of ISO/IEC TS 18013-7 Annex C (src/digital-id/iso-mdoc-dc-api.ts), in a
 * module of its own: naming it does not load the mdoc and HPKE libraries, which a server loads on its first
 * digital-ID request (docs/benchmarks.md, "Server start-up").
 */
export const ISO_MDOC_PROTOCOL = 'org-iso-mdoc';
