//! Agent ids as hosts read them: which policy agents a given id names.
//!
//! The Envoy filter takes an agent id from a request path (`/agents/{id}/card`), the CLI from
//! `check --agent`; both must apply the same rule to the same id (DESIGN.md, "Card routes and
//! path variants"). An id names a policy agent exactly, else regardless of ASCII letter case
//! (policies refuse two ids that differ only in case). Any id may still be looked up as another
//! agent by the registry behind the gate, so [`AgentIds::read`] lists every agent it may be read
//! as, and hosts hold the card to all their rules (for an id that names no agent, the defaults
//! too, the rule of the id itself), tightened together: an agent's own rule never stands alone
//! while the registry may answer its path with another agent's card (a policy that gives
//! `wörker-7` a looser rule than `worker-7` must not let `worker-7`'s card through under it). It
//! only ever adds rules, never removes one.
//!
//! The readings: the id with surrounding whitespace and control characters and trailing dots
//! trimmed (SQL compares without trailing spaces; a handler that trims), cut at a `?` or `#` (a
//! handler that decodes the path before it splits the URL), without a format suffix (the text
//! before the first dot), and the loose key below; they hold both ways (a policy agent's own
//! readings are compared too). An id whose loose key keeps a character the table does not fold
//! may be any agent to some collation, so it names every agent; and an agent whose id keeps one
//! is named by every id it may be with those characters read as any text.
//!
//! Registries commonly look agents up in a database whose collation ignores letter case and
//! accents (MySQL 8's default `utf8mb4_0900_ai_ci`, SQL Server's `*_CI_AI`), compatibility
//! forms (fullwidth letters, ligatures, the Kelvin sign) and ignorable characters (soft hyphen,
//! zero-width characters): `/agents/wörker-7/card` or `/agents/ｗorker-7/card` then serve
//! `worker-7`'s card. [`skeleton`] folds those differences (the fullwidth forms by their fixed
//! offset from ASCII, a table for the Latin letters with diacritics and the Latin ligatures,
//! derived from Unicode's compatibility decompositions), so every host can apply the rule of
//! every policy agent an unknown id may be read as.
//!
//! A table here, not a Unicode crate: hosts need the Latin, ligature and fullwidth foldings
//! only, and a normalization crate would bring Unicode's whole decomposition tables into the
//! `.wasm` modules.

/// Characters an accent- and case-insensitive comparison reads as ASCII text (lowercase).
/// Each entry: the code point and its ASCII text (up to three bytes, zero-padded).
const FOLD: &[(u16, [u8; 3])] = &[
    (0x00C0, [b'a', 0, 0]),
    (0x00C1, [b'a', 0, 0]),
    (0x00C2, [b'a', 0, 0]),
    (0x00C3, [b'a', 0, 0]),
    (0x00C4, [b'a', 0, 0]),
    (0x00C5, [b'a', 0, 0]),
    (0x00C6, [b'a', b'e', 0]),
    (0x00C7, [b'c', 0, 0]),
    (0x00C8, [b'e', 0, 0]),
    (0x00C9, [b'e', 0, 0]),
    (0x00CA, [b'e', 0, 0]),
    (0x00CB, [b'e', 0, 0]),
    (0x00CC, [b'i', 0, 0]),
    (0x00CD, [b'i', 0, 0]),
    (0x00CE, [b'i', 0, 0]),
    (0x00CF, [b'i', 0, 0]),
    (0x00D0, [b'd', 0, 0]),
    (0x00D1, [b'n', 0, 0]),
    (0x00D2, [b'o', 0, 0]),
    (0x00D3, [b'o', 0, 0]),
    (0x00D4, [b'o', 0, 0]),
    (0x00D5, [b'o', 0, 0]),
    (0x00D6, [b'o', 0, 0]),
    (0x00D8, [b'o', 0, 0]),
    (0x00D9, [b'u', 0, 0]),
    (0x00DA, [b'u', 0, 0]),
    (0x00DB, [b'u', 0, 0]),
    (0x00DC, [b'u', 0, 0]),
    (0x00DD, [b'y', 0, 0]),
    (0x00DE, [b't', b'h', 0]),
    (0x00DF, [b's', b's', 0]),
    (0x00E0, [b'a', 0, 0]),
    (0x00E1, [b'a', 0, 0]),
    (0x00E2, [b'a', 0, 0]),
    (0x00E3, [b'a', 0, 0]),
    (0x00E4, [b'a', 0, 0]),
    (0x00E5, [b'a', 0, 0]),
    (0x00E6, [b'a', b'e', 0]),
    (0x00E7, [b'c', 0, 0]),
    (0x00E8, [b'e', 0, 0]),
    (0x00E9, [b'e', 0, 0]),
    (0x00EA, [b'e', 0, 0]),
    (0x00EB, [b'e', 0, 0]),
    (0x00EC, [b'i', 0, 0]),
    (0x00ED, [b'i', 0, 0]),
    (0x00EE, [b'i', 0, 0]),
    (0x00EF, [b'i', 0, 0]),
    (0x00F0, [b'd', 0, 0]),
    (0x00F1, [b'n', 0, 0]),
    (0x00F2, [b'o', 0, 0]),
    (0x00F3, [b'o', 0, 0]),
    (0x00F4, [b'o', 0, 0]),
    (0x00F5, [b'o', 0, 0]),
    (0x00F6, [b'o', 0, 0]),
    (0x00F8, [b'o', 0, 0]),
    (0x00F9, [b'u', 0, 0]),
    (0x00FA, [b'u', 0, 0]),
    (0x00FB, [b'u', 0, 0]),
    (0x00FC, [b'u', 0, 0]),
    (0x00FD, [b'y', 0, 0]),
    (0x00FE, [b't', b'h', 0]),
    (0x00FF, [b'y', 0, 0]),
    (0x0100, [b'a', 0, 0]),
    (0x0101, [b'a', 0, 0]),
    (0x0102, [b'a', 0, 0]),
    (0x0103, [b'a', 0, 0]),
    (0x0104, [b'a', 0, 0]),
    (0x0105, [b'a', 0, 0]),
    (0x0106, [b'c', 0, 0]),
    (0x0107, [b'c', 0, 0]),
    (0x0108, [b'c', 0, 0]),
    (0x0109, [b'c', 0, 0]),
    (0x010A, [b'c', 0, 0]),
    (0x010B, [b'c', 0, 0]),
    (0x010C, [b'c', 0, 0]),
    (0x010D, [b'c', 0, 0]),
    (0x010E, [b'd', 0, 0]),
    (0x010F, [b'd', 0, 0]),
    (0x0110, [b'd', 0, 0]),
    (0x0111, [b'd', 0, 0]),
    (0x0112, [b'e', 0, 0]),
    (0x0113, [b'e', 0, 0]),
    (0x0114, [b'e', 0, 0]),
    (0x0115, [b'e', 0, 0]),
    (0x0116, [b'e', 0, 0]),
    (0x0117, [b'e', 0, 0]),
    (0x0118, [b'e', 0, 0]),
    (0x0119, [b'e', 0, 0]),
    (0x011A, [b'e', 0, 0]),
    (0x011B, [b'e', 0, 0]),
    (0x011C, [b'g', 0, 0]),
    (0x011D, [b'g', 0, 0]),
    (0x011E, [b'g', 0, 0]),
    (0x011F, [b'g', 0, 0]),
    (0x0120, [b'g', 0, 0]),
    (0x0121, [b'g', 0, 0]),
    (0x0122, [b'g', 0, 0]),
    (0x0123, [b'g', 0, 0]),
    (0x0124, [b'h', 0, 0]),
    (0x0125, [b'h', 0, 0]),
    (0x0128, [b'i', 0, 0]),
    (0x0129, [b'i', 0, 0]),
    (0x012A, [b'i', 0, 0]),
    (0x012B, [b'i', 0, 0]),
    (0x012C, [b'i', 0, 0]),
    (0x012D, [b'i', 0, 0]),
    (0x012E, [b'i', 0, 0]),
    (0x012F, [b'i', 0, 0]),
    (0x0130, [b'i', 0, 0]),
    (0x0131, [b'i', 0, 0]),
    (0x0132, [b'i', b'j', 0]),
    (0x0133, [b'i', b'j', 0]),
    (0x0134, [b'j', 0, 0]),
    (0x0135, [b'j', 0, 0]),
    (0x0136, [b'k', 0, 0]),
    (0x0137, [b'k', 0, 0]),
    (0x0139, [b'l', 0, 0]),
    (0x013A, [b'l', 0, 0]),
    (0x013B, [b'l', 0, 0]),
    (0x013C, [b'l', 0, 0]),
    (0x013D, [b'l', 0, 0]),
    (0x013E, [b'l', 0, 0]),
    (0x0141, [b'l', 0, 0]),
    (0x0142, [b'l', 0, 0]),
    (0x0143, [b'n', 0, 0]),
    (0x0144, [b'n', 0, 0]),
    (0x0145, [b'n', 0, 0]),
    (0x0146, [b'n', 0, 0]),
    (0x0147, [b'n', 0, 0]),
    (0x0148, [b'n', 0, 0]),
    (0x014C, [b'o', 0, 0]),
    (0x014D, [b'o', 0, 0]),
    (0x014E, [b'o', 0, 0]),
    (0x014F, [b'o', 0, 0]),
    (0x0150, [b'o', 0, 0]),
    (0x0151, [b'o', 0, 0]),
    (0x0152, [b'o', b'e', 0]),
    (0x0153, [b'o', b'e', 0]),
    (0x0154, [b'r', 0, 0]),
    (0x0155, [b'r', 0, 0]),
    (0x0156, [b'r', 0, 0]),
    (0x0157, [b'r', 0, 0]),
    (0x0158, [b'r', 0, 0]),
    (0x0159, [b'r', 0, 0]),
    (0x015A, [b's', 0, 0]),
    (0x015B, [b's', 0, 0]),
    (0x015C, [b's', 0, 0]),
    (0x015D, [b's', 0, 0]),
    (0x015E, [b's', 0, 0]),
    (0x015F, [b's', 0, 0]),
    (0x0160, [b's', 0, 0]),
    (0x0161, [b's', 0, 0]),
    (0x0162, [b't', 0, 0]),
    (0x0163, [b't', 0, 0]),
    (0x0164, [b't', 0, 0]),
    (0x0165, [b't', 0, 0]),
    (0x0168, [b'u', 0, 0]),
    (0x0169, [b'u', 0, 0]),
    (0x016A, [b'u', 0, 0]),
    (0x016B, [b'u', 0, 0]),
    (0x016C, [b'u', 0, 0]),
    (0x016D, [b'u', 0, 0]),
    (0x016E, [b'u', 0, 0]),
    (0x016F, [b'u', 0, 0]),
    (0x0170, [b'u', 0, 0]),
    (0x0171, [b'u', 0, 0]),
    (0x0172, [b'u', 0, 0]),
    (0x0173, [b'u', 0, 0]),
    (0x0174, [b'w', 0, 0]),
    (0x0175, [b'w', 0, 0]),
    (0x0176, [b'y', 0, 0]),
    (0x0177, [b'y', 0, 0]),
    (0x0178, [b'y', 0, 0]),
    (0x0179, [b'z', 0, 0]),
    (0x017A, [b'z', 0, 0]),
    (0x017B, [b'z', 0, 0]),
    (0x017C, [b'z', 0, 0]),
    (0x017D, [b'z', 0, 0]),
    (0x017E, [b'z', 0, 0]),
    (0x017F, [b's', 0, 0]),
    (0x01A0, [b'o', 0, 0]),
    (0x01A1, [b'o', 0, 0]),
    (0x01AF, [b'u', 0, 0]),
    (0x01B0, [b'u', 0, 0]),
    (0x01C4, [b'd', b'z', 0]),
    (0x01C5, [b'd', b'z', 0]),
    (0x01C6, [b'd', b'z', 0]),
    (0x01C7, [b'l', b'j', 0]),
    (0x01C8, [b'l', b'j', 0]),
    (0x01C9, [b'l', b'j', 0]),
    (0x01CA, [b'n', b'j', 0]),
    (0x01CB, [b'n', b'j', 0]),
    (0x01CC, [b'n', b'j', 0]),
    (0x01CD, [b'a', 0, 0]),
    (0x01CE, [b'a', 0, 0]),
    (0x01CF, [b'i', 0, 0]),
    (0x01D0, [b'i', 0, 0]),
    (0x01D1, [b'o', 0, 0]),
    (0x01D2, [b'o', 0, 0]),
    (0x01D3, [b'u', 0, 0]),
    (0x01D4, [b'u', 0, 0]),
    (0x01D5, [b'u', 0, 0]),
    (0x01D6, [b'u', 0, 0]),
    (0x01D7, [b'u', 0, 0]),
    (0x01D8, [b'u', 0, 0]),
    (0x01D9, [b'u', 0, 0]),
    (0x01DA, [b'u', 0, 0]),
    (0x01DB, [b'u', 0, 0]),
    (0x01DC, [b'u', 0, 0]),
    (0x01DE, [b'a', 0, 0]),
    (0x01DF, [b'a', 0, 0]),
    (0x01E0, [b'a', 0, 0]),
    (0x01E1, [b'a', 0, 0]),
    (0x01E6, [b'g', 0, 0]),
    (0x01E7, [b'g', 0, 0]),
    (0x01E8, [b'k', 0, 0]),
    (0x01E9, [b'k', 0, 0]),
    (0x01EA, [b'o', 0, 0]),
    (0x01EB, [b'o', 0, 0]),
    (0x01EC, [b'o', 0, 0]),
    (0x01ED, [b'o', 0, 0]),
    (0x01F0, [b'j', 0, 0]),
    (0x01F1, [b'd', b'z', 0]),
    (0x01F2, [b'd', b'z', 0]),
    (0x01F3, [b'd', b'z', 0]),
    (0x01F4, [b'g', 0, 0]),
    (0x01F5, [b'g', 0, 0]),
    (0x01F8, [b'n', 0, 0]),
    (0x01F9, [b'n', 0, 0]),
    (0x01FA, [b'a', 0, 0]),
    (0x01FB, [b'a', 0, 0]),
    (0x0200, [b'a', 0, 0]),
    (0x0201, [b'a', 0, 0]),
    (0x0202, [b'a', 0, 0]),
    (0x0203, [b'a', 0, 0]),
    (0x0204, [b'e', 0, 0]),
    (0x0205, [b'e', 0, 0]),
    (0x0206, [b'e', 0, 0]),
    (0x0207, [b'e', 0, 0]),
    (0x0208, [b'i', 0, 0]),
    (0x0209, [b'i', 0, 0]),
    (0x020A, [b'i', 0, 0]),
    (0x020B, [b'i', 0, 0]),
    (0x020C, [b'o', 0, 0]),
    (0x020D, [b'o', 0, 0]),
    (0x020E, [b'o', 0, 0]),
    (0x020F, [b'o', 0, 0]),
    (0x0210, [b'r', 0, 0]),
    (0x0211, [b'r', 0, 0]),
    (0x0212, [b'r', 0, 0]),
    (0x0213, [b'r', 0, 0]),
    (0x0214, [b'u', 0, 0]),
    (0x0215, [b'u', 0, 0]),
    (0x0216, [b'u', 0, 0]),
    (0x0217, [b'u', 0, 0]),
    (0x0218, [b's', 0, 0]),
    (0x0219, [b's', 0, 0]),
    (0x021A, [b't', 0, 0]),
    (0x021B, [b't', 0, 0]),
    (0x021E, [b'h', 0, 0]),
    (0x021F, [b'h', 0, 0]),
    (0x0226, [b'a', 0, 0]),
    (0x0227, [b'a', 0, 0]),
    (0x0228, [b'e', 0, 0]),
    (0x0229, [b'e', 0, 0]),
    (0x022A, [b'o', 0, 0]),
    (0x022B, [b'o', 0, 0]),
    (0x022C, [b'o', 0, 0]),
    (0x022D, [b'o', 0, 0]),
    (0x022E, [b'o', 0, 0]),
    (0x022F, [b'o', 0, 0]),
    (0x0230, [b'o', 0, 0]),
    (0x0231, [b'o', 0, 0]),
    (0x0232, [b'y', 0, 0]),
    (0x0233, [b'y', 0, 0]),
    (0x1E00, [b'a', 0, 0]),
    (0x1E01, [b'a', 0, 0]),
    (0x1E02, [b'b', 0, 0]),
    (0x1E03, [b'b', 0, 0]),
    (0x1E04, [b'b', 0, 0]),
    (0x1E05, [b'b', 0, 0]),
    (0x1E06, [b'b', 0, 0]),
    (0x1E07, [b'b', 0, 0]),
    (0x1E08, [b'c', 0, 0]),
    (0x1E09, [b'c', 0, 0]),
    (0x1E0A, [b'd', 0, 0]),
    (0x1E0B, [b'd', 0, 0]),
    (0x1E0C, [b'd', 0, 0]),
    (0x1E0D, [b'd', 0, 0]),
    (0x1E0E, [b'd', 0, 0]),
    (0x1E0F, [b'd', 0, 0]),
    (0x1E10, [b'd', 0, 0]),
    (0x1E11, [b'd', 0, 0]),
    (0x1E12, [b'd', 0, 0]),
    (0x1E13, [b'd', 0, 0]),
    (0x1E14, [b'e', 0, 0]),
    (0x1E15, [b'e', 0, 0]),
    (0x1E16, [b'e', 0, 0]),
    (0x1E17, [b'e', 0, 0]),
    (0x1E18, [b'e', 0, 0]),
    (0x1E19, [b'e', 0, 0]),
    (0x1E1A, [b'e', 0, 0]),
    (0x1E1B, [b'e', 0, 0]),
    (0x1E1C, [b'e', 0, 0]),
    (0x1E1D, [b'e', 0, 0]),
    (0x1E1E, [b'f', 0, 0]),
    (0x1E1F, [b'f', 0, 0]),
    (0x1E20, [b'g', 0, 0]),
    (0x1E21, [b'g', 0, 0]),
    (0x1E22, [b'h', 0, 0]),
    (0x1E23, [b'h', 0, 0]),
    (0x1E24, [b'h', 0, 0]),
    (0x1E25, [b'h', 0, 0]),
    (0x1E26, [b'h', 0, 0]),
    (0x1E27, [b'h', 0, 0]),
    (0x1E28, [b'h', 0, 0]),
    (0x1E29, [b'h', 0, 0]),
    (0x1E2A, [b'h', 0, 0]),
    (0x1E2B, [b'h', 0, 0]),
    (0x1E2C, [b'i', 0, 0]),
    (0x1E2D, [b'i', 0, 0]),
    (0x1E2E, [b'i', 0, 0]),
    (0x1E2F, [b'i', 0, 0]),
    (0x1E30, [b'k', 0, 0]),
    (0x1E31, [b'k', 0, 0]),
    (0x1E32, [b'k', 0, 0]),
    (0x1E33, [b'k', 0, 0]),
    (0x1E34, [b'k', 0, 0]),
    (0x1E35, [b'k', 0, 0]),
    (0x1E36, [b'l', 0, 0]),
    (0x1E37, [b'l', 0, 0]),
    (0x1E38, [b'l', 0, 0]),
    (0x1E39, [b'l', 0, 0]),
    (0x1E3A, [b'l', 0, 0]),
    (0x1E3B, [b'l', 0, 0]),
    (0x1E3C, [b'l', 0, 0]),
    (0x1E3D, [b'l', 0, 0]),
    (0x1E3E, [b'm', 0, 0]),
    (0x1E3F, [b'm', 0, 0]),
    (0x1E40, [b'm', 0, 0]),
    (0x1E41, [b'm', 0, 0]),
    (0x1E42, [b'm', 0, 0]),
    (0x1E43, [b'm', 0, 0]),
    (0x1E44, [b'n', 0, 0]),
    (0x1E45, [b'n', 0, 0]),
    (0x1E46, [b'n', 0, 0]),
    (0x1E47, [b'n', 0, 0]),
    (0x1E48, [b'n', 0, 0]),
    (0x1E49, [b'n', 0, 0]),
    (0x1E4A, [b'n', 0, 0]),
    (0x1E4B, [b'n', 0, 0]),
    (0x1E4C, [b'o', 0, 0]),
    (0x1E4D, [b'o', 0, 0]),
    (0x1E4E, [b'o', 0, 0]),
    (0x1E4F, [b'o', 0, 0]),
    (0x1E50, [b'o', 0, 0]),
    (0x1E51, [b'o', 0, 0]),
    (0x1E52, [b'o', 0, 0]),
    (0x1E53, [b'o', 0, 0]),
    (0x1E54, [b'p', 0, 0]),
    (0x1E55, [b'p', 0, 0]),
    (0x1E56, [b'p', 0, 0]),
    (0x1E57, [b'p', 0, 0]),
    (0x1E58, [b'r', 0, 0]),
    (0x1E59, [b'r', 0, 0]),
    (0x1E5A, [b'r', 0, 0]),
    (0x1E5B, [b'r', 0, 0]),
    (0x1E5C, [b'r', 0, 0]),
    (0x1E5D, [b'r', 0, 0]),
    (0x1E5E, [b'r', 0, 0]),
    (0x1E5F, [b'r', 0, 0]),
    (0x1E60, [b's', 0, 0]),
    (0x1E61, [b's', 0, 0]),
    (0x1E62, [b's', 0, 0]),
    (0x1E63, [b's', 0, 0]),
    (0x1E64, [b's', 0, 0]),
    (0x1E65, [b's', 0, 0]),
    (0x1E66, [b's', 0, 0]),
    (0x1E67, [b's', 0, 0]),
    (0x1E68, [b's', 0, 0]),
    (0x1E69, [b's', 0, 0]),
    (0x1E6A, [b't', 0, 0]),
    (0x1E6B, [b't', 0, 0]),
    (0x1E6C, [b't', 0, 0]),
    (0x1E6D, [b't', 0, 0]),
    (0x1E6E, [b't', 0, 0]),
    (0x1E6F, [b't', 0, 0]),
    (0x1E70, [b't', 0, 0]),
    (0x1E71, [b't', 0, 0]),
    (0x1E72, [b'u', 0, 0]),
    (0x1E73, [b'u', 0, 0]),
    (0x1E74, [b'u', 0, 0]),
    (0x1E75, [b'u', 0, 0]),
    (0x1E76, [b'u', 0, 0]),
    (0x1E77, [b'u', 0, 0]),
    (0x1E78, [b'u', 0, 0]),
    (0x1E79, [b'u', 0, 0]),
    (0x1E7A, [b'u', 0, 0]),
    (0x1E7B, [b'u', 0, 0]),
    (0x1E7C, [b'v', 0, 0]),
    (0x1E7D, [b'v', 0, 0]),
    (0x1E7E, [b'v', 0, 0]),
    (0x1E7F, [b'v', 0, 0]),
    (0x1E80, [b'w', 0, 0]),
    (0x1E81, [b'w', 0, 0]),
    (0x1E82, [b'w', 0, 0]),
    (0x1E83, [b'w', 0, 0]),
    (0x1E84, [b'w', 0, 0]),
    (0x1E85, [b'w', 0, 0]),
    (0x1E86, [b'w', 0, 0]),
    (0x1E87, [b'w', 0, 0]),
    (0x1E88, [b'w', 0, 0]),
    (0x1E89, [b'w', 0, 0]),
    (0x1E8A, [b'x', 0, 0]),
    (0x1E8B, [b'x', 0, 0]),
    (0x1E8C, [b'x', 0, 0]),
    (0x1E8D, [b'x', 0, 0]),
    (0x1E8E, [b'y', 0, 0]),
    (0x1E8F, [b'y', 0, 0]),
    (0x1E90, [b'z', 0, 0]),
    (0x1E91, [b'z', 0, 0]),
    (0x1E92, [b'z', 0, 0]),
    (0x1E93, [b'z', 0, 0]),
    (0x1E94, [b'z', 0, 0]),
    (0x1E95, [b'z', 0, 0]),
    (0x1E96, [b'h', 0, 0]),
    (0x1E97, [b't', 0, 0]),
    (0x1E98, [b'w', 0, 0]),
    (0x1E99, [b'y', 0, 0]),
    (0x1E9B, [b's', 0, 0]),
    (0x1E9E, [b's', b's', 0]),
    (0x1EA0, [b'a', 0, 0]),
    (0x1EA1, [b'a', 0, 0]),
    (0x1EA2, [b'a', 0, 0]),
    (0x1EA3, [b'a', 0, 0]),
    (0x1EA4, [b'a', 0, 0]),
    (0x1EA5, [b'a', 0, 0]),
    (0x1EA6, [b'a', 0, 0]),
    (0x1EA7, [b'a', 0, 0]),
    (0x1EA8, [b'a', 0, 0]),
    (0x1EA9, [b'a', 0, 0]),
    (0x1EAA, [b'a', 0, 0]),
    (0x1EAB, [b'a', 0, 0]),
    (0x1EAC, [b'a', 0, 0]),
    (0x1EAD, [b'a', 0, 0]),
    (0x1EAE, [b'a', 0, 0]),
    (0x1EAF, [b'a', 0, 0]),
    (0x1EB0, [b'a', 0, 0]),
    (0x1EB1, [b'a', 0, 0]),
    (0x1EB2, [b'a', 0, 0]),
    (0x1EB3, [b'a', 0, 0]),
    (0x1EB4, [b'a', 0, 0]),
    (0x1EB5, [b'a', 0, 0]),
    (0x1EB6, [b'a', 0, 0]),
    (0x1EB7, [b'a', 0, 0]),
    (0x1EB8, [b'e', 0, 0]),
    (0x1EB9, [b'e', 0, 0]),
    (0x1EBA, [b'e', 0, 0]),
    (0x1EBB, [b'e', 0, 0]),
    (0x1EBC, [b'e', 0, 0]),
    (0x1EBD, [b'e', 0, 0]),
    (0x1EBE, [b'e', 0, 0]),
    (0x1EBF, [b'e', 0, 0]),
    (0x1EC0, [b'e', 0, 0]),
    (0x1EC1, [b'e', 0, 0]),
    (0x1EC2, [b'e', 0, 0]),
    (0x1EC3, [b'e', 0, 0]),
    (0x1EC4, [b'e', 0, 0]),
    (0x1EC5, [b'e', 0, 0]),
    (0x1EC6, [b'e', 0, 0]),
    (0x1EC7, [b'e', 0, 0]),
    (0x1EC8, [b'i', 0, 0]),
    (0x1EC9, [b'i', 0, 0]),
    (0x1ECA, [b'i', 0, 0]),
    (0x1ECB, [b'i', 0, 0]),
    (0x1ECC, [b'o', 0, 0]),
    (0x1ECD, [b'o', 0, 0]),
    (0x1ECE, [b'o', 0, 0]),
    (0x1ECF, [b'o', 0, 0]),
    (0x1ED0, [b'o', 0, 0]),
    (0x1ED1, [b'o', 0, 0]),
    (0x1ED2, [b'o', 0, 0]),
    (0x1ED3, [b'o', 0, 0]),
    (0x1ED4, [b'o', 0, 0]),
    (0x1ED5, [b'o', 0, 0]),
    (0x1ED6, [b'o', 0, 0]),
    (0x1ED7, [b'o', 0, 0]),
    (0x1ED8, [b'o', 0, 0]),
    (0x1ED9, [b'o', 0, 0]),
    (0x1EDA, [b'o', 0, 0]),
    (0x1EDB, [b'o', 0, 0]),
    (0x1EDC, [b'o', 0, 0]),
    (0x1EDD, [b'o', 0, 0]),
    (0x1EDE, [b'o', 0, 0]),
    (0x1EDF, [b'o', 0, 0]),
    (0x1EE0, [b'o', 0, 0]),
    (0x1EE1, [b'o', 0, 0]),
    (0x1EE2, [b'o', 0, 0]),
    (0x1EE3, [b'o', 0, 0]),
    (0x1EE4, [b'u', 0, 0]),
    (0x1EE5, [b'u', 0, 0]),
    (0x1EE6, [b'u', 0, 0]),
    (0x1EE7, [b'u', 0, 0]),
    (0x1EE8, [b'u', 0, 0]),
    (0x1EE9, [b'u', 0, 0]),
    (0x1EEA, [b'u', 0, 0]),
    (0x1EEB, [b'u', 0, 0]),
    (0x1EEC, [b'u', 0, 0]),
    (0x1EED, [b'u', 0, 0]),
    (0x1EEE, [b'u', 0, 0]),
    (0x1EEF, [b'u', 0, 0]),
    (0x1EF0, [b'u', 0, 0]),
    (0x1EF1, [b'u', 0, 0]),
    (0x1EF2, [b'y', 0, 0]),
    (0x1EF3, [b'y', 0, 0]),
    (0x1EF4, [b'y', 0, 0]),
    (0x1EF5, [b'y', 0, 0]),
    (0x1EF6, [b'y', 0, 0]),
    (0x1EF7, [b'y', 0, 0]),
    (0x1EF8, [b'y', 0, 0]),
    (0x1EF9, [b'y', 0, 0]),
    (0x212A, [b'k', 0, 0]),
    (0x212B, [b'a', 0, 0]),
    (0xFB00, [b'f', b'f', 0]),
    (0xFB01, [b'f', b'i', 0]),
    (0xFB02, [b'f', b'l', 0]),
    (0xFB03, [b'f', b'f', b'i']),
    (0xFB04, [b'f', b'f', b'l']),
    (0xFB05, [b's', b't', 0]),
    (0xFB06, [b's', b't', 0]),
];

/// Characters an accent-insensitive comparison ignores: default ignorable code points, the
/// C0/C1 controls, and combining diacritical marks (`o` + U+0308 is `ö`, compared as `o`).
fn ignorable(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                // The combining mark blocks, less what ICU's root collation weighs as letters at
                // level 1 (combining Latin small letters, U+0363..U+036F and U+1DD3..U+1DF4: `ͦ`
                // is an `o` to it) and code points unassigned in its Unicode version: those
                // stay in the key, which then names every agent ([`AgentIds::read`]).
                | '\u{0300}'..='\u{0362}'
                | '\u{1AB0}'..='\u{1ABE}'
                | '\u{1AC1}'..='\u{1ACB}'
                | '\u{1ACF}'..='\u{1ADD}'
                | '\u{1DC0}'..='\u{1DC9}'
                | '\u{1DCB}'..='\u{1DD1}'
                | '\u{1DF5}'..='\u{1DFF}'
                | '\u{20D0}'..='\u{20F0}'
                | '\u{FE20}'..='\u{FE2F}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
        )
}

/// The loose key of an id: fullwidth forms read as ASCII, Unicode spaces as a space, ignorable
/// characters dropped, ASCII letters lowercased, the fold table (`FOLD`) applied (other characters
/// are kept as they are).
pub fn skeleton(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for c in id.chars() {
        // The fullwidth forms U+FF01..U+FF5E are ASCII `!`..`~` moved up by 0xFEE0.
        let c = match c {
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(u32::from(c) - 0xFEE0).unwrap_or(c),
            _ => c,
        };
        if c.is_ascii() && !c.is_ascii_control() {
            out.push(c.to_ascii_lowercase());
        } else if ignorable(c) {
            continue;
        } else if c.is_whitespace() {
            // No-break and other Unicode spaces: a space to a collation (and trimmed as one).
            out.push(' ');
        } else {
            let found = u16::try_from(u32::from(c))
                .ok()
                .and_then(|cp| FOLD.binary_search_by_key(&cp, |&(k, _)| k).ok())
                .and_then(|i| FOLD.get(i));
            match found {
                Some((_, text)) => {
                    out.extend(text.iter().take_while(|&&b| b != 0).map(|&b| char::from(b)))
                }
                None => out.push(c),
            }
        }
    }
    out
}

/// Other ids an upstream may read `id` as: without surrounding whitespace, control characters
/// and trailing dots, cut at a `?` or `#`, and without a format suffix
/// ([`without_format_suffix`]: `/agents/worker-7.json` is worker-7), each then trimmed; and the
/// same of `id` with its percent-escapes decoded, once and twice (an id sent in a URL path as
/// given: `check --agent worker-7%20` asks the registry for `worker-7 `; the filter's path
/// variants decode a path twice as well). Only readings that differ from `id`, each once,
/// never empty.
pub fn readings(id: &str) -> Vec<String> {
    let trim = |s: &str| {
        s.trim_matches(|c: char| c.is_whitespace() || c.is_control())
            .trim_end_matches(|c: char| c == '.' || c.is_whitespace() || c.is_control())
            .to_owned()
    };
    let mut bases = vec![id.to_owned()];
    for _ in 0..2 {
        match bases.last().and_then(|last| percent_decoded(last)) {
            Some(decoded) => bases.push(decoded),
            None => break,
        }
    }
    let mut out: Vec<String> = Vec::new();
    for base in &bases {
        let base = base.as_str();
        let cut = base.split(['?', '#']).next().unwrap_or(base);
        let format = without_format_suffix(base).unwrap_or(base);
        // Spring's suffix matching reads `{id}.*` up to the last dot (`.w7.json` is `.w7`).
        let last = base
            .rsplit_once('.')
            .map(|(stem, _)| stem)
            .filter(|stem| !stem.is_empty())
            .unwrap_or(base);
        for reading in [trim(base), trim(cut), trim(format), trim(last)] {
            if !reading.is_empty() && reading != id && !out.contains(&reading) {
                out.push(reading);
            }
        }
    }
    out
}

/// `text` with its `%XX` escapes decoded (bytes that are no UTF-8 read as U+FFFD, which no fold
/// covers: such an id names every agent), or `None` when it has none.
fn percent_decoded(text: &str) -> Option<String> {
    let hex = |b: u8| char::from(b).to_digit(16);
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let mut any = false;
    while let Some(&b) = bytes.get(i) {
        let pair = bytes
            .get(i + 1)
            .and_then(|&h| hex(h))
            .zip(bytes.get(i + 2).and_then(|&l| hex(l)));
        match pair {
            Some((h, l)) if b == b'%' => {
                // Two hex digits: at most 0xFF.
                out.push(u8::try_from(h * 16 + l).unwrap_or(b'%'));
                any = true;
                i += 3;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    any.then(|| String::from_utf8_lossy(&out).into_owned())
}

/// A path segment without a format suffix, if it has one: the text before its first `.`, when
/// that is not empty. Rails' `(.:format)` (a dynamic segment stops at the first dot, and
/// `render json:` answers whatever the format) reads `worker-7.json`, `worker-7.xml` or
/// `worker-7.json.json` as `worker-7`; Spring's suffix matching takes `card.<anything>` for
/// `card` ([`names_with_suffix`]).
pub fn without_format_suffix(segment: &str) -> Option<&str> {
    segment
        .split_once('.')
        .map(|(stem, _)| stem)
        .filter(|stem| !stem.is_empty())
}

/// Whether `segment` is `literal` followed by a `.` and anything (ASCII case aside): Spring
/// MVC's suffix pattern matching (on by default before Spring 5.3) matches `literal.*`.
pub fn names_with_suffix(segment: &str, literal: &str) -> bool {
    segment
        .get(..literal.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(literal))
        && segment.as_bytes().get(literal.len()) == Some(&b'.')
}

/// The loose keys an id may be compared by: the [`skeleton`] of the id and of each of its
/// [`readings`], and the readings of each skeleton (a space before an ignorable character is
/// trailing once the character is dropped), each once.
fn keys(id: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut forms = readings(id);
    forms.insert(0, id.to_owned());
    for form in forms {
        let key = skeleton(&form);
        let mut more = readings(&key);
        more.insert(0, key);
        for k in more {
            if !out.contains(&k) {
                out.push(k);
            }
        }
    }
    out
}

/// Whether the ASCII key `given` may be the loose key `agent` to a collation: equal, or, where
/// `agent` holds characters the fold does not cover, with each run of them standing for any
/// text (`ħub` may be `hub`; `агент-7` may be any id ending in `-7`). A glob match, linear but
/// for backtracking over the runs.
fn may_be(given: &str, agent: &str) -> bool {
    if agent.is_ascii() {
        return given == agent;
    }
    // The agent key as literal ASCII bytes and wildcards (`None`), one per run.
    let mut pattern: Vec<Option<u8>> = Vec::new();
    for c in agent.chars() {
        match u8::try_from(c).ok().filter(u8::is_ascii) {
            Some(b) => pattern.push(Some(b)),
            None if pattern.last() == Some(&None) => {}
            None => pattern.push(None),
        }
    }
    let text = given.as_bytes();
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(Some(b)) if text.get(t) == Some(b) => {
                p += 1;
                t += 1;
            }
            Some(None) => {
                star = Some((p, t));
                p += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern
        .get(p..)
        .is_some_and(|rest| rest.iter().all(Option::is_none))
}

/// Whether a loose key still holds a character the fold does not cover (a letter of another
/// script, a superscript or circled digit, a mathematical letter): a collation may read it as
/// another character, ASCII or not, and nothing here can tell which.
fn opaque(key: &str) -> bool {
    !key.is_ascii()
}

/// A policy's agent ids with their loose keys (`keys`), computed once: what reads a given id
/// as policy agents (see the module documentation). Build it with [`crate::Policy::agent_ids`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentIds {
    /// Each policy agent's id and its loose keys, in policy order.
    ids: Vec<(String, Vec<String>)>,
}

/// What a given agent id names (see [`AgentIds::read`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading<'a> {
    /// The id of this policy agent, exactly or but for ASCII letter case: its rule applies,
    /// tightened with the rules of the other policy agents it may still be read as (in the
    /// order read; most policies have none).
    Agent(&'a str, Vec<&'a str>),
    /// No policy agent's id: the defaults apply to it, tightened with the rules of the policy
    /// agents it may still be read as (in the order read; none: the defaults alone).
    Unknown(Vec<&'a str>),
}

impl AgentIds {
    /// The ids of a policy's agents, in policy order.
    pub fn new<'a>(ids: impl IntoIterator<Item = &'a str>) -> AgentIds {
        let ids = ids
            .into_iter()
            .map(|id| (id.to_owned(), keys(id)))
            .collect();
        AgentIds { ids }
    }

    /// The policy's spelling of `given`: the agent named exactly, else regardless of ASCII
    /// letter case.
    pub fn known(&self, given: &str) -> Option<&str> {
        let exact = self.ids.iter().find(|(id, _)| id == given);
        exact
            .or_else(|| {
                self.ids
                    .iter()
                    .find(|(id, _)| id.eq_ignore_ascii_case(given))
            })
            .map(|(id, _)| id.as_str())
    }

    /// The policy agents `given` names: every agent that `given` or one of its [`readings`] is
    /// the id of ([`AgentIds::known`]), or that shares a loose key with it (`keys`, both
    /// ways: `worker-7` names an agent `worker-7 ` as `worker-7 ` names `worker-7`), in reading
    /// order and policy order, each once; the one `given` is the id of, if any, apart from the
    /// others. An id with a character the fold does not cover (`opaque`: `АГЕНТ-7`,
    /// `worker-⁷`, `ĦUB`) may be any agent to a collation: it names every agent; and an agent
    /// whose id holds such characters is named by every id it may be (`may_be`: `hub` names
    /// an agent `ħub`).
    pub fn read(&self, given: &str) -> Reading<'_> {
        let mut readings = readings(given);
        readings.insert(0, given.to_owned());
        let mut out: Vec<&str> = Vec::new();
        let mut any = false;
        for reading in &readings {
            if let Some(known) = self.known(reading) {
                if !out.contains(&known) {
                    out.push(known);
                }
            }
            let loose = keys(reading);
            any |= loose.iter().any(|k| opaque(k));
            for (id, theirs) in &self.ids {
                let named = theirs
                    .iter()
                    .any(|k| loose.iter().any(|l| l == k || (!opaque(l) && may_be(l, k))));
                if named && !out.contains(&id.as_str()) {
                    out.push(id);
                }
            }
        }
        if any {
            for (id, _) in &self.ids {
                if !out.contains(&id.as_str()) {
                    out.push(id);
                }
            }
        }
        match self.known(given) {
            Some(known) => {
                out.retain(|id| *id != known);
                Reading::Agent(known, out)
            }
            None => Reading::Unknown(out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{readings, skeleton, AgentIds, Reading, FOLD};

    #[test]
    fn a_key_the_fold_does_not_cover_may_be_any_text_in_its_place() {
        use super::may_be;
        for (given, agent, want) in [
            ("hub", "hub", true),
            ("hub", "hu", false),
            ("hub", "\u{0127}ub", true),
            ("hhub", "\u{0127}ub", true),
            ("ub", "\u{0127}ub", true),
            ("hubx", "\u{0127}ub", false),
            (
                "worker-7",
                "\u{0430}\u{0433}\u{0435}\u{043D}\u{0442}-7",
                true,
            ),
            (
                "worker-8",
                "\u{0430}\u{0433}\u{0435}\u{043D}\u{0442}-7",
                false,
            ),
            ("a-b-c", "a\u{2077}b\u{2077}c", true),
            ("a-b", "a\u{2077}b\u{2077}c", false),
            ("abcabc", "a\u{2077}c", true),
            ("", "\u{2077}", true),
        ] {
            assert_eq!(may_be(given, agent), want, "{given:?} {agent:?}");
        }
    }

    #[test]
    fn the_table_is_sorted() {
        assert!(FOLD.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn folds_what_collations_ignore() {
        for id in [
            "worker-7",
            "WORKER-7",
            "wörker-7",
            "WÖRKER-7",
            "\u{FF57}orker-7",
            "\u{FF37}\u{FF2F}RKER-7",
            "wor\u{212A}er-7",
            "work\u{00AD}er-7",
            "wo\u{200B}rker-7",
            "wórkér-7",
            "ŵorker-7",
            "wo\u{0308}rker-7",
            "W\u{0301}ORKER-7",
        ] {
            assert_eq!(skeleton(id), "worker-7", "{id:?}");
        }
        assert_eq!(skeleton("stra\u{00DF}e"), "strasse");
        assert_eq!(skeleton("\u{FB01}nd"), "find");
        assert_eq!(skeleton("Ærø"), "aero");
        assert_ne!(skeleton("worker-8"), skeleton("worker-7"));
        assert_eq!(skeleton("агент"), "агент");
        // Every fullwidth form is its one ASCII character (U+FF3C is one backslash).
        assert_eq!(skeleton("a\u{FF3C}b\u{FF01}\u{FF5E}"), "a\\b!~");
    }

    #[test]
    fn readings_trim_and_cut() {
        assert_eq!(readings("worker-7 "), ["worker-7"]);
        assert_eq!(readings(" worker-7.\u{0}. "), ["worker-7"]);
        assert_eq!(readings("worker-7?x"), ["worker-7"]);
        assert_eq!(readings("w ?x"), ["w"]);
        assert!(readings("worker-7").is_empty());
        assert!(readings(" . ").is_empty());
        assert!(readings("?x").is_empty());
        assert_eq!(readings("worker-7%20"), ["worker-7"]);
        assert_eq!(readings("worker-7%2520"), ["worker-7%20", "worker-7"]);
        assert_eq!(readings("w%3Fx"), ["w?x", "w"]);
        assert_eq!(readings("%e2%ff"), ["\u{FFFD}\u{FFFD}"]);
        assert!(readings("100%").is_empty());
    }

    #[test]
    fn an_id_is_read_as_every_agent_it_may_name() {
        let ids = AgentIds::new(["worker-7", "Wörker-7", "archive", "x?y"]);
        // An agent's own id, in any ASCII case: that agent, and every other agent it may still
        // be read as (a registry that compares accent-insensitively answers `worker-7` and
        // `Wörker-7` alike).
        assert_eq!(
            ids.read("worker-7"),
            Reading::Agent("worker-7", vec!["Wörker-7"])
        );
        assert_eq!(ids.read("WORKER-7"), ids.read("worker-7"));
        assert_eq!(
            ids.read("wÖRKER-7"),
            Reading::Unknown(vec!["worker-7", "Wörker-7"])
        );
        assert_eq!(
            ids.read("WöRKER-7"),
            Reading::Agent("Wörker-7", vec!["worker-7"])
        );
        assert_eq!(ids.read("archive"), Reading::Agent("archive", vec![]));
        assert_eq!(ids.read("x?y"), Reading::Agent("x?y", vec![]));
        // Both ways: a registry that compares without trailing spaces answers `w` with the
        // card of `w ` as readily as the other way round (a cut at `?` is held both ways too:
        // it only ever adds a rule).
        let cut = AgentIds::new(["x?y", "x", "w ", "w", "v.json", "v"]);
        assert_eq!(cut.read("x?y"), Reading::Agent("x?y", vec!["x"]));
        assert_eq!(cut.read("x"), Reading::Agent("x", vec!["x?y"]));
        assert_eq!(cut.read("w "), Reading::Agent("w ", vec!["w"]));
        assert_eq!(cut.read("w"), Reading::Agent("w", vec!["w "]));
        assert_eq!(cut.read("v.JSON"), Reading::Agent("v.json", vec!["v"]));
        assert_eq!(cut.read("u.json"), Reading::Unknown(vec![]));
        // A space before an ignorable character is trailing once the character is dropped.
        assert_eq!(
            ids.read("worker-7 \u{00AD}"),
            Reading::Unknown(vec!["worker-7", "Wörker-7"])
        );
        // A character the fold does not cover (another script's letters or digits, a
        // superscript, a letter outside the table): every agent.
        let every = Reading::Unknown(vec!["worker-7", "Wörker-7", "archive", "x?y"]);
        for id in [
            "АГЕНТ-7",
            "worker-\u{0667}",
            "worker-\u{2077}",
            "\u{0127}ub",
        ] {
            assert_eq!(ids.read(id), every, "{id:?}");
        }
        // Combining Latin small letters are letters to ICU (`ͦ` is an `o`): not dropped.
        assert_eq!(ids.read("w\u{0366}rker-7"), every);
        assert_eq!(
            ids.read("wo\u{0308}rker-7"),
            Reading::Unknown(vec!["worker-7", "Wörker-7"])
        );
        // Both ways: an agent whose id the fold does not cover is named by the ASCII ids it may
        // be (`ħub` by `hub`), and only by those.
        let rev = AgentIds::new(["\u{0127}ub", "\u{01FF}resund", "agent-\u{2077}", "worker-7"]);
        assert_eq!(rev.read("hub"), Reading::Unknown(vec!["\u{0127}ub"]));
        assert_eq!(rev.read("HUB"), Reading::Unknown(vec!["\u{0127}ub"]));
        assert_eq!(
            rev.read("oresund"),
            Reading::Unknown(vec!["\u{01FF}resund"])
        );
        assert_eq!(
            rev.read("agent-7"),
            Reading::Unknown(vec!["agent-\u{2077}"])
        );
        assert_eq!(rev.read("worker-7"), Reading::Agent("worker-7", vec![]));
        assert_eq!(rev.read("hubs"), Reading::Unknown(vec![]));
        // A dotted agent id keeps its reading up to the last dot (Spring's `{id}.*`).
        let dotted = AgentIds::new([".w7", "worker-7.prod"]);
        assert_eq!(dotted.read(".w7.json"), Reading::Unknown(vec![".w7"]));
        assert_eq!(
            dotted.read("worker-7.prod.json"),
            Reading::Unknown(vec!["worker-7.prod"])
        );
        // Any format suffix is read off (Rails' `(.:format)`).
        for id in ["worker-7.json", "worker-7.XML", "worker-7.html"] {
            assert_eq!(
                ids.read(id),
                Reading::Unknown(vec!["worker-7", "Wörker-7"]),
                "{id:?}"
            );
        }
        let cyrillic = AgentIds::new(["агент-7", "АГЕНТ-7", "worker-7"]);
        assert_eq!(
            cyrillic.read("АГЕНТ-7"),
            Reading::Agent("АГЕНТ-7", vec!["агент-7", "worker-7"])
        );
        // Trimmed or cut: the agent that names (in the order read), then its loose key's.
        assert_eq!(ids.read("Archive. "), Reading::Unknown(vec!["archive"]));
        assert_eq!(
            ids.read("worker-7 "),
            Reading::Unknown(vec!["worker-7", "Wörker-7"])
        );
        assert_eq!(ids.read("worker-7#frag"), ids.read("worker-7 "));
        // Accents, width, ligatures, ignorables: every agent with the same loose key.
        for id in [
            "\u{FF57}orker-7",
            "wo\u{200B}rker-7",
            "wor\u{212A}er-7",
            "work\u{00AD}er-7",
        ] {
            assert_eq!(
                ids.read(id),
                Reading::Unknown(vec!["worker-7", "Wörker-7"]),
                "{id:?}"
            );
        }
        assert_eq!(
            AgentIds::new(["office"]).read("o\u{FB03}ce"),
            Reading::Unknown(vec!["office"])
        );
        // Nothing it may name: the defaults alone.
        assert_eq!(ids.read("worker-8"), Reading::Unknown(vec![]));
        assert_eq!(ids.read(""), Reading::Unknown(vec![]));
        assert_eq!(AgentIds::default().read("w"), Reading::Unknown(vec![]));
    }
}
