// Included (`include!`) by the unit tests that replay tests/vectors/url/redirect_locations.json:
// the CLI's `url` module and the Envoy filter's `redirect` module.

/// The file's path (`CARDGATE_REDIRECT_LOCATIONS` names a bigger corpus of the same form, from
/// `node tests/node/redirect-locations.mjs --out FILE`) and its cases.
fn redirect_location_cases() -> (String, Vec<serde_json::Value>) {
    let path = std::env::var("CARDGATE_REDIRECT_LOCATIONS").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/vectors/url/redirect_locations.json"
        )
        .into()
    });
    let text = std::fs::read_to_string(&path).unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    let cases = file["cases"].as_array().unwrap().clone();
    (path, cases)
}
