//! The `auth` of an HTTP server's entry in a registry file's
//! `mcp_servers` section: read with feature `client-auth` (`${VAR}` from
//! the environment, each mistake at the line and column of its key, no
//! secret quoted), refused at its place without it. And (feature
//! `sections`) the `resources`, `prompts` and `skills` sections.

#![cfg(feature = "client")]

use tool_manifest::Manifest;
use tool_mcp::client::{McpServerEntry, McpServers};

// The `resources`, `prompts` and `skills` sections.
#[cfg(all(feature = "sections", feature = "skills"))]
#[path = "client_section/sections.rs"]
mod sections;

/// The entries of `text`, and its mistakes as `LINE:COLUMN: message`.
fn read(text: &str) -> (Vec<McpServerEntry>, Vec<String>) {
    let manifest = Manifest::parse_with("tools.yaml", text, &[&McpServers]).unwrap();
    let problems = manifest
        .problems()
        .iter()
        .map(ToString::to_string)
        .collect();
    let entries = manifest
        .section::<McpServers>()
        .cloned()
        .unwrap_or_default();
    (entries, problems)
}

/// An HTTP entry with `auth` holding `lines` (each indented under it).
fn with_auth(lines: &[&str]) -> String {
    let mut text = "mcp_servers:\n  up:\n    url: http://127.0.0.1:9/mcp\n    auth:\n".to_owned();
    for line in lines {
        text.push_str("      ");
        text.push_str(line);
        text.push('\n');
    }
    text
}

#[cfg(not(feature = "client-auth"))]
#[test]
fn without_the_feature_auth_is_refused_at_its_place_naming_it() {
    let (entries, problems) = read(&with_auth(&["grant: client_credentials"]));
    assert_eq!(
        problems,
        [
            "4:5: MCP server \"up\": `auth` (OAuth for the client) needs tool-mcp's \
          `client-auth` feature, which this program is built without"
        ]
    );
    assert_eq!(entries.len(), 1);
}

#[cfg(feature = "client-auth")]
mod client_auth {
    use base64::Engine;
    use serde_json::json;
    use tool_manifest::Section;
    use tool_mcp::client::McpClientOptions;
    use tool_mcp::client::McpServers;
    use tool_mcp::client::oauth::{OAuthConfig, OAuthGrant};

    use super::{read, with_auth};

    /// A variable cargo sets for the tests it runs, and its value.
    fn set_variable() -> (&'static str, String) {
        let value = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
        ("CARGO_MANIFEST_DIR", value)
    }

    /// A variable no one sets.
    const UNSET: &str = "TOOL_MCP_SECTION_TEST_UNSET_SECRET";

    /// The P-256 test key as PEM, indented for `private_key: |`.
    fn key_block() -> String {
        let der = include_bytes!("fixtures/auth/ec-p256.der");
        let body = base64::engine::general_purpose::STANDARD.encode(der);
        let mut block = "        -----BEGIN PRIVATE KEY-----\n".to_owned();
        for line in body.as_bytes().chunks(64) {
            block.push_str("        ");
            block.push_str(std::str::from_utf8(line).unwrap());
            block.push('\n');
        }
        block.push_str("        -----END PRIVATE KEY-----");
        block
    }

    #[test]
    fn client_credentials_with_a_secret_from_the_environment() {
        let (variable, value) = set_variable();
        let secret = format!("client_secret: \"s-${{{variable}}}-t\"");
        let text = with_auth(&[
            "grant: client_credentials",
            "client_id: m2m",
            &secret,
            "scopes: [tools:read, tools:call]",
        ]);
        let (entries, problems) = read(&text);
        assert_eq!(problems, Vec::<String>::new());
        let auth = entries[0].auth.clone().expect("read");
        assert_eq!(auth.grant, OAuthGrant::ClientCredentials);
        assert_eq!(auth.client_id.as_deref(), Some("m2m"));
        let secret = auth.client_secret.as_ref().expect("a secret");
        assert_eq!(secret.expose(), format!("s-{value}-t"));
        assert_eq!(auth.scopes, ["tools:read", "tools:call"]);
        // The entry as written still has it; the value shows nowhere.
        assert_eq!(entries[0].config["auth"]["client_id"], "m2m");
        assert!(!format!("{:?}", entries[0]).contains(&value));
        let options = entries[0].client_options(McpClientOptions::default());
        assert_eq!(options.oauth.expect("OAuth").config(), &auth);
    }

    #[test]
    fn the_authorization_code_and_a_private_key() {
        let text = with_auth(&["client_id: agent", "scopes: [notes:read]"]);
        let (entries, problems) = read(&text);
        assert_eq!(problems, Vec::<String>::new());
        let expected = OAuthConfig::default()
            .with_client("agent", None)
            .with_scopes(["notes:read"]);
        assert_eq!(entries[0].auth, Some(expected));

        let key = format!("private_key: |\n{}", key_block());
        let text = with_auth(&["grant: client_credentials", "client_id: m2m-jwt", &key]);
        let (entries, problems) = read(&text);
        assert_eq!(problems, Vec::<String>::new());
        let auth = entries[0].auth.clone().expect("read");
        assert!(auth.private_key.is_some() && auth.client_secret.is_none());

        // No auth: none, and the options as they were.
        let (entries, _) = read("mcp_servers:\n  up: {url: http://127.0.0.1:9/mcp}\n");
        assert_eq!(entries[0].auth, None);
        let options = entries[0].client_options(McpClientOptions::default());
        assert!(options.oauth.is_none());
    }

    #[test]
    fn each_mistake_is_at_its_key_with_what_is_expected() {
        let cases: Vec<(String, &str)> = vec![
            (
                with_auth(&["grant: client_credentials", "client_id: m2m", "scope: a"]),
                "7:7: MCP server \"up\": `auth`: unknown key `scope`, expected one of `grant`, \
                 `client_id`, `client_secret`, `private_key`, `signing_algorithm`, \
                 `client_issuer`, `client_metadata_url`, `client_name`, `scopes`, \
                 `max_authorizations`",
            ),
            (
                with_auth(&["scopes: tools:read"]),
                "5:7: MCP server \"up\": `auth.scopes`: invalid type: string \"tools:read\", \
                 expected a sequence",
            ),
            (
                with_auth(&["grant: password"]),
                "5:7: MCP server \"up\": `auth.grant`: unknown variant `password`, expected \
                 `authorization_code` or `client_credentials`",
            ),
            (
                with_auth(&[
                    "grant: client_credentials",
                    "client_secret: \"${CARGO_MANIFEST_DIR}\"",
                ]),
                "4:5: MCP server \"up\": `auth`: the `client_credentials` grant needs \
                 `client_id`, the client registered with the authorization server",
            ),
            (
                with_auth(&["grant: client_credentials", "client_id: m2m"]),
                "4:5: MCP server \"up\": `auth`: the `client_credentials` grant needs \
                 `client_secret` (such as \"${SECRET_VARIABLE}\") or `private_key`",
            ),
            (
                with_auth(&[
                    "grant: client_credentials",
                    "client_id: m2m",
                    "client_secret: \"${TOOL_MCP_SECTION_TEST_UNSET_SECRET}\"",
                ]),
                "7:7: MCP server \"up\": `auth.client_secret`: the environment variable \
                 `TOOL_MCP_SECTION_TEST_UNSET_SECRET` is not set",
            ),
            (
                with_auth(&["client_id: \"${NOT A NAME}\""]),
                "5:7: MCP server \"up\": `auth.client_id`: `${NOT A NAME}` does not name an \
                 environment variable (letters, digits and `_`)",
            ),
            (
                with_auth(&["client_id: m2m", "client_secret: \"s3cr3t${oops\""]),
                "6:7: MCP server \"up\": `auth.client_secret`: a `${` is not closed: `${VAR}` \
                 is the environment variable VAR",
            ),
            (
                with_auth(&["client_id: m2m", "client_secret: 918273645"]),
                "6:7: MCP server \"up\": `auth.client_secret` is text: the secret in quotes, or \
                 \"${VAR}\" to read it from the environment variable VAR",
            ),
            (
                with_auth(&["client_secret: s3cr3t"]),
                "5:7: MCP server \"up\": `auth.client_secret` belongs to `client_id`, which is \
                 not given",
            ),
            (
                with_auth(&["client_id: m2m", "private_key: not-a-pem-s3cr3t"]),
                "6:7: MCP server \"up\": `auth.private_key`: the private key is not PEM: PEM \
                 error: PEM preamble contains invalid data (NUL byte)",
            ),
            (
                with_auth(&["client_id: m2m", "signing_algorithm: ES256"]),
                "6:7: MCP server \"up\": `auth.signing_algorithm` goes with `private_key`, \
                 which is not given",
            ),
            (
                with_auth(&["max_authorizations: 0"]),
                "5:7: MCP server \"up\": `auth.max_authorizations` is at least 1",
            ),
            (
                with_auth(&["max_authorizations: -1"]),
                "5:7: MCP server \"up\": `auth.max_authorizations`: invalid value: integer \
                 `-1`, expected u32",
            ),
            (
                "mcp_servers:\n  up:\n    url: http://127.0.0.1:9/mcp\n    auth: yes\n".to_owned(),
                "4:5: MCP server \"up\": `auth` must be a mapping: `grant` (`authorization_code` \
                 or `client_credentials`), `client_id`, `client_secret` or `private_key`, \
                 `scopes`...",
            ),
            (
                "mcp_servers:\n  up:\n    command: npx\n    auth: {client_id: a}\n".to_owned(),
                "4:5: MCP server \"up\": `auth` belongs to a server reached over HTTP (`url`); a \
                 spawned server (`command`) takes its credentials from its `env`",
            ),
            (
                "mcp_servers:\n  up:\n    url: http://127.0.0.1:9/mcp\n    headers: \
                 {authorization: Bearer x}\n    auth: {client_id: a}\n"
                    .to_owned(),
                "5:5: MCP server \"up\": give `auth` or an `Authorization` header, not both: \
                 `auth` sends the access token it obtains as the `Authorization` header",
            ),
        ];
        for (text, expected) in cases {
            let (entries, problems) = read(&text);
            assert_eq!(problems, [expected], "in\n{text}");
            assert_eq!(entries.len(), 1, "the entry is read still");
            assert_eq!(entries[0].auth, None, "no auth after a mistake in\n{text}");
            for secret in ["s3cr3t", "918273645"] {
                assert!(
                    !problems[0].contains(secret),
                    "{secret} shows: {}",
                    problems[0]
                );
            }
        }
    }

    #[test]
    fn two_mistakes_are_both_reported() {
        let text = with_auth(&[
            "grant: client_credentials",
            "client_id: [m2m]",
            &format!("client_secret: \"${{{UNSET}}}\""),
        ]);
        let (_, problems) = read(&text);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].starts_with("6:7: MCP server \"up\": `auth.client_id`: invalid type"));
        assert!(problems[1].starts_with("7:7: MCP server \"up\": `auth.client_secret`"));
    }

    #[test]
    fn the_schema_takes_auth_in_the_configuration_s_form() {
        let schema = McpServers.schema();
        let http = schema["additionalProperties"]["anyOf"]
            .as_array()
            .unwrap()
            .iter()
            .find(|form| form["properties"]["url"].is_object())
            .expect("the HTTP form");
        let auth = &http["properties"]["auth"];
        let grants: Vec<&serde_json::Value> = auth["properties"]["grant"]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|grant| &grant["const"])
            .collect();
        assert_eq!(
            grants,
            [&json!("authorization_code"), &json!("client_credentials")]
        );
        assert_eq!(auth["properties"]["max_authorizations"]["minimum"], 1);
        assert!(auth["properties"]["client_id"].get("default").is_none());
        // Plain words, not rustdoc links.
        assert!(!auth.to_string().contains("Self::"));
        assert_eq!(auth["additionalProperties"], json!(false));
        assert_eq!(auth["properties"]["client_secret"]["type"], "string");
        assert!(auth["properties"]["scopes"]["type"] == "array");
        let stdio = schema["additionalProperties"]["anyOf"]
            .as_array()
            .unwrap()
            .iter()
            .find(|form| form["properties"]["command"].is_object())
            .expect("the stdio form");
        assert!(stdio["properties"]["auth"].is_null());
    }
}
