//! Tools from configuration: a registry file's `http_tools` and `openapi`
//! sections, called against a stand-in HTTP server on 127.0.0.1 that this
//! test starts (no other network), and the Swagger Petstore document
//! (`tests/fixtures/openapi/`, OpenAPI 3.0 and 3.1).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tool_builtin::http_tools::{self, LoadOptions, Loaded};
use tool_manifest::Manifest;
use tool_runtime::providers::{self, Provider};
use tool_runtime::schema::STANDARD_FORMATS;
use tool_runtime::{Registry, Tool, ToolContext, ToolResult, ToolUse, schema::strict};

// The example tools (`convert_length`), for the command-line test.
use examples as _;

// ---- the stand-in server -------------------------------------------------

/// One request the server received.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    /// The path and query, as sent.
    target: String,
    /// Header names in lower case.
    headers: Vec<(String, String)>,
    body: String,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|_| panic!("a JSON body: {}", self.body))
    }
}

/// The answer to one request.
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn json(status: u16, body: Value) -> Reply {
        Reply {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: body.to_string(),
        }
    }
}

/// An HTTP/1.1 server on 127.0.0.1 that records every request and answers
/// with `handler`; it lives as long as the test process.
struct Server {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    fn start(handler: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port on 127.0.0.1");
        Server::serve(listener, handler)
    }

    /// A server on 127.0.0.2 where that address can be bound (Linux), else
    /// on another port of 127.0.0.1: another origin either way.
    fn start_elsewhere(handler: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.2:0")
            .or_else(|_| TcpListener::bind("127.0.0.1:0"))
            .expect("a port on 127.0.0.2 or 127.0.0.1");
        Server::serve(listener, handler)
    }

    fn serve(
        listener: TcpListener,
        handler: impl Fn(&Seen) -> Reply + Send + Sync + 'static,
    ) -> Server {
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let recorded = Arc::clone(&seen);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                if let Some(request) = read_request(&stream) {
                    let reply = handler(&request);
                    recorded.lock().unwrap().push(request);
                    write_reply(stream, &reply);
                }
            }
        });
        Server { addr, seen }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn read_request(stream: &TcpStream) -> Option<Seen> {
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut words = line.split_whitespace();
    let method = words.next()?.to_owned();
    let target = words.next()?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let length = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Seen {
        method,
        target,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

fn write_reply(mut stream: TcpStream, reply: &Reply) {
    let mut text = format!(
        "HTTP/1.1 {} Answer\r\nContent-Length: {}\r\nConnection: close\r\n",
        reply.status,
        reply.body.len()
    );
    for (name, value) in &reply.headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(&reply.body);
    let _ = stream.write_all(text.as_bytes());
}

// ---- helpers -------------------------------------------------------------

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/openapi")
}

/// The tools of a registry file's text, `${VAR}` read from `env`.
fn load(text: &str, env: &[(&str, &str)]) -> (Manifest, Loaded) {
    let manifest =
        Manifest::parse_with("tools.yaml", text, http_tools::SECTIONS).expect("valid YAML");
    let env: Vec<(String, String)> = env
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let options = LoadOptions::new()
        .env(move |name| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
        .base_dir(fixtures());
    let loaded = http_tools::load_with(&manifest, &options);
    (manifest, loaded)
}

/// The registry of a file whose sections have no mistake.
fn registry(text: &str, env: &[(&str, &str)]) -> (Registry, Loaded) {
    let (manifest, loaded) = load(text, env);
    if let Some(error) = loaded.error(&manifest) {
        panic!("{error}");
    }
    let registry = manifest
        .build_with(loaded.builder(Registry::builder().config_from_env(false)))
        .unwrap_or_else(|error| panic!("{error}"));
    (registry, loaded)
}

async fn call(registry: &Registry, name: &str, args: Value) -> ToolResult {
    registry
        .invoke(ToolUse::new("1", name, args), &ToolContext::new())
        .await
}

fn structured(result: &ToolResult) -> Value {
    assert!(result.is_success(), "{}", result.text_content());
    let content = serde_json::to_value(&result.content[0]).unwrap();
    content["json"].clone()
}

// ---- declared HTTP tools -------------------------------------------------

fn items_file(server: &Server) -> String {
    format!(
        r#"
http_tools:
  - name: add_item
    description: Adds an item to a shelf of the catalogue.
    method: POST
    url: {}/shelves/{{shelf}}/items
    parameters:
      - shelf: {{type: string, description: The shelf, required: true}}
      - title: {{type: string, required: true}}
      - count: {{type: integer, default: 1}}
      - tags: {{type: array, items: string}}
      - dry_run: boolean
    query:
      dry_run: "{{dry_run}}"
      source: agent
    headers:
      Authorization: Bearer ${{ITEMS_TOKEN}}
    body:
      title: "{{title}}"
      count: "{{count}}"
      tags: "{{tags}}"
      meta: {{origin: registry file}}
"#,
        server.url()
    )
}

#[tokio::test]
async fn a_declared_tool_sends_path_query_header_and_body() {
    let server = Server::start(|_| Reply::json(201, json!({"id": 7, "created": true})));
    let (registry, loaded) = registry(&items_file(&server), &[("ITEMS_TOKEN", "tok-123")]);
    assert_eq!(loaded.tools[0].origin, format!("http:{}", server.addr));

    let result = call(
        &registry,
        "add_item",
        json!({"shelf": "books & more/new", "title": "Dune", "tags": ["sf", "classic"], "dry_run": false}),
    )
    .await;
    let answer = structured(&result);
    assert_eq!(answer["status"], 201);
    assert_eq!(answer["body"], json!({"id": 7, "created": true}));
    assert_eq!(answer["headers"]["content-type"], "application/json");
    assert_eq!(answer["truncated"], false);

    let [request] = server.requests().try_into().expect("one request");
    assert_eq!(request.method, "POST");
    // The path parameter is percent-encoded, `/` included.
    assert_eq!(
        request.target,
        "/shelves/books%20%26%20more%2Fnew/items?dry_run=false&source=agent"
    );
    assert_eq!(request.header("authorization"), Some("Bearer tok-123"));
    assert_eq!(request.header("content-type"), Some("application/json"));
    // The default fills `count`; the body keeps the arguments' types.
    assert_eq!(
        request.json(),
        json!({"title": "Dune", "count": 1, "tags": ["sf", "classic"], "meta": {"origin": "registry file"}})
    );

    // An absent optional argument leaves its query parameter out.
    call(&registry, "add_item", json!({"shelf": "a", "title": "B"})).await;
    let requests = server.requests();
    assert_eq!(requests[1].target, "/shelves/a/items?source=agent");
}

#[tokio::test]
async fn arguments_are_checked_before_any_request() {
    let server = Server::start(|_| Reply::json(200, json!({})));
    let (registry, _) = registry(&items_file(&server), &[("ITEMS_TOKEN", "tok")]);
    let result = call(&registry, "add_item", json!({"shelf": 5, "titel": "x"})).await;
    assert!(result.is_error());
    let text = result.text_content();
    assert!(text.starts_with("invalid arguments for add_item"), "{text}");
    assert!(text.contains("shelf: expected a string, got 5"), "{text}");
    assert!(text.contains("did you mean \"title\""), "{text}");
    // A path segment of `..` would climb the API's paths: refused.
    let result = call(&registry, "add_item", json!({"shelf": "..", "title": "x"})).await;
    assert!(result.is_error(), "{}", result.text_content());
    assert!(server.requests().is_empty(), "no request was sent");
}

#[tokio::test]
async fn a_redirect_to_another_host_is_refused() {
    let elsewhere = Server::start(|_| Reply::json(200, json!({"stolen": true})));
    let target = format!("http://localhost:{}/collect", elsewhere.addr.port());
    let same_host = format!("{}/moved", "/v2");
    let server = Server::start(move |seen| {
        let location = if seen.target.starts_with("/away") {
            target.clone()
        } else if seen.target.starts_with("/here") {
            same_host.clone()
        } else {
            return Reply::json(200, json!({"followed": seen.target}));
        };
        Reply {
            status: 302,
            headers: vec![("Location".into(), location)],
            body: String::new(),
        }
    });
    let file = format!(
        "http_tools:\n  - name: fetch\n    description: Fetches a page.\n    url: {}/{{page}}\n    \
         parameters:\n      - page: {{type: string, required: true}}\n",
        server.url()
    );
    let (registry, _) = registry(&file, &[]);
    let result = call(&registry, "fetch", json!({"page": "away"})).await;
    assert!(result.is_error());
    let text = result.text_content();
    assert!(
        text.contains("redirects to http://localhost:") && text.contains("not an allowed host"),
        "{text}"
    );
    assert!(
        elsewhere.requests().is_empty(),
        "the other host was never reached"
    );
    // A redirect to the tool's own host is followed.
    let answer = structured(&call(&registry, "fetch", json!({"page": "here"})).await);
    assert_eq!(answer["body"], json!({"followed": "/v2/moved"}));
}

#[tokio::test]
async fn secrets_never_show_in_errors() {
    const SECRET: &str = "s3cret-Value-91";
    // The server echoes the credentials it got into its error answer.
    let server = Server::start(|seen| {
        Reply::json(
            500,
            json!({"error": "bad key", "got": seen.header("x-api-key"), "query": seen.target}),
        )
    });
    let file = format!(
        "http_tools:\n  - name: lookup\n    description: Looks a word up.\n    url: {}/words/{{word}}\n    \
         parameters:\n      - word: {{type: string, required: true}}\n    \
         query: {{key: \"${{LOOKUP_KEY}}\"}}\n    headers: {{X-Api-Key: \"${{LOOKUP_KEY}}\"}}\n",
        server.url()
    );
    let (registry, loaded) = registry(&file, &[("LOOKUP_KEY", SECRET)]);
    assert!(
        !format!("{loaded:?}").contains(SECRET),
        "Debug shows no secret"
    );

    // A failing call: the answer's body quotes the secret back.
    let result = call(&registry, "lookup", json!({"word": "tree"})).await;
    assert!(result.is_error());
    let text = result.text_content();
    assert!(text.contains("answered 500"), "{text}");
    assert!(text.contains("[redacted]"), "{text}");
    assert!(!text.contains(SECRET), "{text}");
    assert_eq!(server.requests()[0].header("x-api-key"), Some(SECRET));

    // A call that cannot connect: the URL in the message has the secret
    // in its query.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let file = file.replace(&server.url(), &format!("http://127.0.0.1:{port}"));
    let (registry, _) = self::registry(&file, &[("LOOKUP_KEY", SECRET)]);
    let text = call(&registry, "lookup", json!({"word": "tree"}))
        .await
        .text_content();
    assert!(text.contains("refused the connection"), "{text}");
    assert!(!text.contains(SECRET), "{text}");

    // At load: a header value from the environment that cannot be sent.
    let broken = format!("{SECRET}\nX-Injected: yes");
    let (manifest, loaded) = load(&file, &[("LOOKUP_KEY", &broken)]);
    let error = loaded
        .error(&manifest)
        .expect("a load-time error")
        .to_string();
    assert!(
        error.contains("the value of header \"X-Api-Key\" is not a valid header value (its value comes from ${LOOKUP_KEY})"),
        "{error}"
    );
    assert!(!error.contains(SECRET), "{error}");
    // And one that is not set names the variable alone.
    let (manifest, loaded) = load(&file, &[]);
    let error = loaded.error(&manifest).unwrap().to_string();
    assert!(
        error.contains("the environment variable LOOKUP_KEY (in `query.key`) is not set"),
        "{error}"
    );
}

#[test]
fn mistakes_are_reported_at_once_with_their_places() {
    let file = r#"http_tools:
  - name: get_item
    description: Fetches one item.
    url: https://api.example.com/items/{idd}
    parameters:
      - id: {type: string, required: true}
      - id: {type: integer}
    headers: {Authorization: "Bearer ${NO_SUCH_VAR_HT}"}
  - name: bad_host
    description: Has no host.
    url: "https://exa mple.com/x"
    methd: GET
  - name: in_host
    description: Puts a placeholder in its host.
    url: "https://{tenant}.example.com/x"
    parameters: [{tenant: {type: string, required: true}}]
openapi:
  broken:
    document: petstore-3.0.json
    base_url: http://127.0.0.1:1/v2
    include: [pets, getPetById]
    auth: {api_kye: "x"}
"#;
    let (manifest, loaded) = load(file, &[]);
    let error = loaded.error(&manifest).expect("mistakes").to_string();
    let lines: Vec<&str> = error.lines().collect();
    assert_eq!(
        lines,
        [
            "tools.yaml:4:10: HTTP tool \"get_item\": unknown placeholder {idd} in `url`; did you mean {id}? the parameters are: id",
            "tools.yaml:6:9: HTTP tool \"get_item\": parameter \"id\" is used nowhere: put {id} in `url`, `query`, `headers` or `body`, or remove it",
            "tools.yaml:7:9: HTTP tool \"get_item\": parameter \"id\" is named twice (first at line 6); remove or rename one",
            "tools.yaml:8:30: HTTP tool \"get_item\": the environment variable NO_SUCH_VAR_HT (in `headers.Authorization`) is not set",
            "tools.yaml:11:10: HTTP tool \"bad_host\": \"https://exa mple.com/x\" is not a valid URL (invalid international domain name); write a full URL such as \"https://api.example.com/items/{id}\"",
            "tools.yaml:12:5: HTTP tool \"bad_host\": unknown key `methd`; did you mean `method`? an HTTP tool has `name`, `description`, `url`, and optionally `title`, `method`, `parameters`, `query`, `headers`, `body` and limits (`timeout_ms`, ...)",
            "tools.yaml:15:10: HTTP tool \"in_host\": placeholders go in the URL's path only; the host is fixed, and query parameters go in `query`",
            "tools.yaml:21:15: OpenAPI \"broken\": \"pets\" is neither an operationId nor a tag of the document; did you mean \"pet\"?",
            "tools.yaml:22:12: OpenAPI \"broken\": the document has no security scheme `api_kye`; did you mean `api_key`? its schemes are: petstore_auth, api_key",
        ],
        "{error}"
    );
}

// ---- OpenAPI: the Swagger Petstore ---------------------------------------

const PETSTORE_OPERATIONS: [&str; 20] = [
    "addPet",
    "updatePet",
    "findPetsByStatus",
    "findPetsByTags",
    "getPetById",
    "updatePetWithForm",
    "deletePet",
    "uploadFile",
    "getInventory",
    "placeOrder",
    "getOrderById",
    "deleteOrder",
    "createUser",
    "createUsersWithArrayInput",
    "createUsersWithListInput",
    "loginUser",
    "logoutUser",
    "getUserByName",
    "updateUser",
    "deleteUser",
];

/// A petstore whose answers are what the document says of each call.
fn petstore_server() -> Server {
    Server::start(|seen| {
        let path = seen.target.split('?').next().unwrap_or("");
        match (seen.method.as_str(), path) {
            ("GET", "/v2/pet/42") => Reply::json(
                200,
                json!({"id": 42, "name": "Rex", "photoUrls": [], "status": "available"}),
            ),
            ("GET", "/v2/pet/findByStatus") => Reply::json(200, json!([])),
            ("GET", "/v2/store/inventory") => Reply::json(200, json!({"available": 3})),
            ("GET", "/v2/pet/404") => Reply::json(404, json!({"message": "Pet not found"})),
            _ => Reply::json(200, json!({"ok": true})),
        }
    })
}

fn petstore_file(document: &str, server: &Server) -> String {
    format!(
        "openapi:\n  petstore:\n    document: {document}\n    base_url: {}/v2\n    \
         auth: {{api_key: \"${{PETSTORE_KEY}}\"}}\n",
        server.url()
    )
}

#[test]
fn petstore_tools_are_listed_and_render_for_every_provider() {
    let server = petstore_server();
    for document in ["petstore-3.0.json", "petstore-3.1.json"] {
        let (registry, loaded) =
            registry(&petstore_file(document, &server), &[("PETSTORE_KEY", "k")]);
        // In the document's order as loaded; the registry lists by name.
        let loaded_names: Vec<String> = loaded
            .tools
            .iter()
            .map(|t| t.tool.spec().name.to_string())
            .collect();
        assert_eq!(loaded_names, PETSTORE_OPERATIONS, "{document}");
        let mut sorted = PETSTORE_OPERATIONS.to_vec();
        sorted.sort_unstable();
        assert_eq!(registry.names().collect::<Vec<_>>(), sorted, "{document}");
        assert!(loaded.tools.iter().all(|t| t.origin == "openapi:petstore"));

        for provider in Provider::ALL {
            let rendered = registry.render(provider);
            assert!(!rendered.is_null(), "{provider}");
            for spec in registry.specs() {
                let tool = providers::render_tool(provider, spec);
                for schema in schemas_in(provider, &tool) {
                    let what = format!("{document} {provider} {}", spec.name);
                    jsonschema::draft202012::meta::validate(&schema)
                        .unwrap_or_else(|error| panic!("{what}: {error}\n{schema:#}"));
                    jsonschema::draft202012::new(&schema)
                        .unwrap_or_else(|error| panic!("{what}: {error}\n{schema:#}"));
                    let mut problems = Vec::new();
                    schema_problems(&schema, "", provider, &mut problems);
                    assert_eq!(problems, Vec::<String>::new(), "{what}\n{schema:#}");
                }
            }
        }
        // Strict where the schema allows: such a tool renders strict, and
        // its strict schema passes the checker.
        let mut strict_tools = 0;
        for spec in registry.specs() {
            if !spec.strict {
                continue;
            }
            strict_tools += 1;
            let tool = providers::render_tool(Provider::OpenAiChat, spec);
            assert_eq!(tool["function"]["strict"], true, "{}", spec.name);
            assert_eq!(
                strict::check(&tool["function"]["parameters"]),
                Vec::new(),
                "{}",
                spec.name
            );
        }
        assert_eq!(strict_tools, PETSTORE_OPERATIONS.len(), "{document}");
        // Gemini gets no references.
        let gemini = registry.render(Provider::Gemini).to_string();
        assert!(!gemini.contains("\"$ref\"") && !gemini.contains("\"$defs\""));
    }
}

/// The JSON Schemas in one rendered tool.
fn schemas_in(provider: Provider, tool: &Value) -> Vec<Value> {
    let found = match provider {
        Provider::OpenAiChat | Provider::OpenAiStrict => vec![&tool["function"]["parameters"]],
        Provider::OpenAiResponses | Provider::Gemini => vec![&tool["parameters"]],
        Provider::Anthropic => vec![&tool["input_schema"]],
        Provider::Bedrock => vec![&tool["toolSpec"]["inputSchema"]["json"]],
        Provider::Mcp => vec![&tool["inputSchema"], &tool["outputSchema"]],
        _ => Vec::new(),
    };
    found
        .into_iter()
        .filter(|s| !s.is_null())
        .cloned()
        .collect()
}

/// What the project's schema checks refuse: boolean sub-schemas and
/// formats outside JSON Schema's own (Gemini has its own list).
fn schema_problems(schema: &Value, at: &str, provider: Provider, problems: &mut Vec<String>) {
    let Some(object) = schema.as_object() else {
        problems.push(format!("{at}: a boolean or non-object schema"));
        return;
    };
    for (key, value) in object {
        let here = format!("{at}/{key}");
        match key.as_str() {
            "format"
                if provider != Provider::Gemini
                    && !value
                        .as_str()
                        .is_some_and(|f| STANDARD_FORMATS.contains(&f)) =>
            {
                problems.push(format!("{here}: format {value}"));
            }
            "properties" | "$defs" | "patternProperties" => {
                for (name, child) in value.as_object().into_iter().flatten() {
                    schema_problems(child, &format!("{here}/{name}"), provider, problems);
                }
            }
            "items" | "not" => schema_problems(value, &here, provider, problems),
            "additionalProperties" if value != &Value::Bool(false) => {
                schema_problems(value, &here, provider, problems)
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                for (i, child) in value.as_array().into_iter().flatten().enumerate() {
                    schema_problems(child, &format!("{here}/{i}"), provider, problems);
                }
            }
            _ => {}
        }
    }
}

#[test]
fn petstore_schemas_come_from_parameters_bodies_and_responses() {
    let server = petstore_server();
    let (registry, loaded) = registry(
        &petstore_file("petstore-3.0.json", &server),
        &[("PETSTORE_KEY", "k")],
    );
    let schema = |name: &str| registry.get(name).unwrap().spec().input_schema().clone();
    // Parameters in the document's order, path ones required.
    let login = schema("loginUser");
    let order: Vec<&String> = login["properties"].as_object().unwrap().keys().collect();
    assert_eq!(order, ["username", "password"]);
    assert_eq!(login["required"], json!(["username", "password"]));
    let by_id = schema("getPetById");
    assert_eq!(by_id["required"], json!(["petId"]));
    assert_eq!(
        by_id["properties"]["petId"]["description"],
        "ID of pet to return"
    );
    // `api_key` comes from `auth` for getPetById (security: api_key); for
    // deletePet (security: petstore_auth) it stays a parameter.
    assert!(by_id["properties"].get("api_key").is_none());
    assert!(schema("deletePet")["properties"].get("api_key").is_some());
    // The JSON body, its $refs resolved.
    let add = schema("addPet");
    let pet = &add["properties"]["body"];
    assert_eq!(pet["required"], json!(["name", "photoUrls"]));
    assert_eq!(
        pet["properties"]["category"]["properties"]["name"]["type"],
        "string"
    );
    assert_eq!(
        pet["properties"]["status"]["enum"],
        json!(["available", "pending", "sold"])
    );
    assert_eq!(add["required"], json!(["body"]));
    // The output schema from the JSON 200 response.
    let spec = registry.get("getPetById").unwrap().spec().clone();
    let output = spec.output_schema().expect("an output schema");
    assert_eq!(
        output["properties"]["body"]["properties"]["name"]["type"],
        "string"
    );
    assert!(
        registry
            .get("logoutUser")
            .unwrap()
            .spec()
            .output_schema()
            .is_none()
    );
    // Descriptions from summary and description; hints from the method.
    assert_eq!(spec.description, "Find pet by ID\n\nReturns a single pet");
    assert_eq!(spec.annotations.read_only, Some(true));
    let delete = registry.get("deletePet").unwrap().spec().clone();
    assert_eq!(delete.annotations.destructive, Some(true));
    // The multipart body of uploadFile (3.0) is left out, with a note.
    let notes: Vec<String> = loaded.notes.iter().map(|n| n.message.clone()).collect();
    assert!(
        notes.iter().any(|n| n.contains(
            "POST /pet/{petId}/uploadImage: its optional body (multipart/form-data) is left out"
        )),
        "{notes:?}"
    );
}

#[tokio::test]
async fn petstore_calls_reach_the_server_as_the_document_says() {
    let server = petstore_server();
    for document in ["petstore-3.0.json", "petstore-3.1.json"] {
        let (registry, _) = registry(
            &petstore_file(document, &server),
            &[("PETSTORE_KEY", "special-key")],
        );
        let before = server.requests().len();

        let pet = structured(&call(&registry, "getPetById", json!({"petId": 42})).await);
        assert_eq!(pet["body"]["name"], "Rex");
        call(
            &registry,
            "findPetsByStatus",
            json!({"status": ["available", "sold"]}),
        )
        .await;
        let added = call(
            &registry,
            "addPet",
            json!({"body": {"name": "Tom", "photoUrls": ["http://x/1.png"], "status": "pending"}}),
        )
        .await;
        assert!(added.is_success(), "{}", added.text_content());
        call(
            &registry,
            "deletePet",
            json!({"petId": 7, "api_key": "own"}),
        )
        .await;
        call(
            &registry,
            "loginUser",
            json!({"username": "ann", "password": "pw d"}),
        )
        .await;
        let missing = call(&registry, "getPetById", json!({"petId": 404})).await;
        assert!(missing.is_error());
        assert!(
            missing
                .text_content()
                .contains("answered 404 Not Found: {\"message\":\"Pet not found\"}"),
            "{}",
            missing.text_content()
        );
        let bad = call(&registry, "getPetById", json!({"petId": "forty-two"})).await;
        assert!(bad.is_error(), "checked against the schema first");

        let requests = &server.requests()[before..];
        let shown: Vec<(&str, &str)> = requests
            .iter()
            .map(|r| (r.method.as_str(), r.target.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                ("GET", "/v2/pet/42"),
                ("GET", "/v2/pet/findByStatus?status=available&status=sold"),
                ("POST", "/v2/pet"),
                ("DELETE", "/v2/pet/7"),
                ("GET", "/v2/user/login?username=ann&password=pw+d"),
                ("GET", "/v2/pet/404"),
            ],
            "{document}"
        );
        assert_eq!(requests[0].header("api_key"), Some("special-key"));
        assert_eq!(requests[0].header("accept"), Some("application/json"));
        assert_eq!(
            requests[2].json(),
            json!({"name": "Tom", "photoUrls": ["http://x/1.png"], "status": "pending"})
        );
        assert_eq!(requests[3].header("api_key"), Some("own"));
    }
}

#[test]
fn an_operation_without_an_id_is_named_from_its_method_and_path() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("notes.yaml"),
        "openapi: 3.1.0\ninfo: {title: Notes, version: '1'}\nservers: [{url: 'http://127.0.0.1:9/api'}]\n\
         paths:\n  /notes/{id}:\n    get:\n      summary: Reads a note.\n      parameters:\n        \
         - {name: id, in: path, required: true, schema: {type: [integer, 'null']}}\n",
    )
    .unwrap();
    let manifest = Manifest::parse_with(
        "tools.yaml",
        "openapi:\n  notes:\n    document: notes.yaml\n    base_url: http://127.0.0.1:9/api\n",
        http_tools::SECTIONS,
    )
    .unwrap();
    let loaded = http_tools::load_with(&manifest, &LoadOptions::new().base_dir(dir.path()));
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    assert_eq!(loaded.tools[0].tool.spec().name, "get_notes_id");
    let [note] = loaded.notes.as_slice() else {
        panic!("{:?}", loaded.notes)
    };
    assert_eq!(note.location.map(|at| (at.line, at.column)), Some((3, 15)));
    assert_eq!(
        note.message,
        "OpenAPI \"notes\": notes.yaml:6:5: GET /notes/{id}: the operation has no operationId; its tool is named \"get_notes_id\" from its method and path (give it an operationId for a stable name)"
    );
}

// ---- through the command line ---------------------------------------------

#[tokio::test]
async fn the_command_line_lists_calls_and_serves_them() {
    let server = petstore_server();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tools.yaml");
    std::fs::copy(
        fixtures().join("petstore-3.1.json"),
        dir.path().join("petstore.json"),
    )
    .unwrap();
    std::fs::write(
        &file,
        format!(
            "tools: [convert_length]\nhttp_tools:\n  - name: get_item\n    description: Gets an item.\n    \
             url: {}/items/{{id}}\n    parameters: [{{id: {{type: integer, required: true}}}}]\n\
             openapi:\n  petstore:\n    document: petstore.json\n    base_url: {}/v2\n    \
             include: [getInventory, getPetById]\n    prefix: petstore_\n",
            server.url(),
            server.url()
        ),
    )
    .unwrap();
    let file = file.to_string_lossy().into_owned();
    let run = |args: &[&str]| {
        let mut all = vec!["toolbox", "--registry", file.as_str()];
        all.extend(args);
        let args: Vec<String> = all.iter().map(|s| (*s).to_owned()).collect();
        tool_cli::run_async(Registry::builder().build().unwrap(), args)
    };
    assert_eq!(run(&["list"]).await, std::process::ExitCode::SUCCESS);
    assert_eq!(
        run(&["call", "get_item", "--args", r#"{"id": 3}"#, "--quiet"]).await,
        std::process::ExitCode::SUCCESS
    );
    assert_eq!(server.requests().last().unwrap().target, "/items/3");
    // Arguments the schema refuses: a usage error, and no request.
    let before = server.requests().len();
    assert_eq!(
        run(&["call", "get_item", "--args", r#"{"id": "x"}"#, "--quiet"]).await,
        std::process::ExitCode::from(tool_cli::EXIT_USAGE)
    );
    assert_eq!(server.requests().len(), before);

    // `serve --http`: an MCP client sees the tools and calls one.
    let port = {
        let probe = TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port()
    };
    let address = format!("127.0.0.1:{port}");
    let serve_args: Vec<String> = ["toolbox", "--registry", &file, "serve", "--http", &address]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(tool_cli::run_async(
            Registry::builder().build().unwrap(),
            serve_args,
        ));
    });
    let config = tool_mcp::client::McpServerConfig::http(format!("http://{address}/mcp"));
    let mut client = None;
    for _ in 0..100 {
        if let Ok(connected) = tool_mcp::client::McpClient::connect("toolbox", config.clone()).await
        {
            client = Some(connected);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let client = client.expect("toolbox serves MCP");
    let mut names: Vec<String> = client
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "convert_length",
            "get_item",
            "petstore_getInventory",
            "petstore_getPetById"
        ]
    );
    let result = client
        .invoke(
            ToolUse::new("1", "petstore_getInventory", json!({})),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(structured(&result)["body"], json!({"available": 3}));
    client.close().await;
}

#[test]
fn the_example_registry_file_loads_and_fits_the_published_schema() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/http_tools/tools.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let document = tool_manifest::Document::parse(&text).unwrap();
    let schema: Value =
        serde_json::from_str(include_str!("../../docs/registry-file.schema.json")).unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(document.value())
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert_eq!(errors, Vec::<String>::new());

    let manifest = Manifest::parse_with("tools.yaml", &text, http_tools::SECTIONS).unwrap();
    let options = LoadOptions::new()
        .env(|name| {
            ["GITHUB_TOKEN", "PETSTORE_KEY"]
                .contains(&name)
                .then(|| "x".to_owned())
        })
        .base_dir(path.parent().unwrap());
    let registry = http_tools::build_with(&manifest, &options, Registry::builder())
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        registry.names().collect::<Vec<_>>(),
        [
            "comment_on_issue",
            "convert_length",
            "list_issues",
            "petstore_addPet",
            "petstore_findPetsByStatus",
            "petstore_findPetsByTags",
            "petstore_getInventory",
            "petstore_getPetById",
            "petstore_updatePet",
            "petstore_updatePetWithForm",
            "petstore_uploadFile",
        ]
    );
    // Without the environment's values, the file says which are missing.
    let error = http_tools::build_with(
        &manifest,
        &LoadOptions::new()
            .env(|_| None)
            .base_dir(path.parent().unwrap()),
        Registry::builder(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("the environment variable GITHUB_TOKEN"),
        "{error}"
    );
    assert!(
        error.contains("the environment variable PETSTORE_KEY"),
        "{error}"
    );
}

#[test]
fn a_tool_name_used_twice_is_a_mistake_at_the_later_one() {
    let file = "tools: [convert_length]\nhttp_tools:\n  - name: fetch\n    description: One.\n    \
                url: https://a.example.com/\n  - name: fetch\n    description: Two.\n    \
                url: https://b.example.com/\n  - name: convert_length\n    description: Three.\n    \
                url: https://c.example.com/\n";
    let (manifest, loaded) = load(file, &[]);
    let error = loaded.error(&manifest).unwrap().to_string();
    assert_eq!(
        error.lines().collect::<Vec<_>>(),
        [
            "tools.yaml:6:11: the tool name \"fetch\" (http:b.example.com) is used twice: also by http:a.example.com at line 3; rename one (an OpenAPI entry takes a `prefix`)",
            "tools.yaml:9:11: the tool name \"convert_length\" (http:c.example.com) is used twice: also by the linked tool of that name in `tools`; rename one (an OpenAPI entry takes a `prefix`)",
        ]
    );
}

#[tokio::test]
async fn the_command_line_refuses_a_file_with_mistakes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tools.yaml");
    std::fs::write(
        &file,
        "http_tools:\n  - name: broken\n    description: Has a bad placeholder.\n    url: https://api.example.com/{nope}\n",
    )
    .unwrap();
    let file = file.to_string_lossy().into_owned();
    let code = tool_cli::run_async(
        Registry::builder().build().unwrap(),
        ["toolbox", "--registry", &file, "list"],
    )
    .await;
    assert_eq!(code, std::process::ExitCode::from(tool_cli::EXIT_USAGE));
}

/// Run by `list_shows_where_each_tool_comes_from` in a child process of
/// this test binary, whose stdout that test reads: `toolbox list` and
/// `toolbox list --json` over the registry file `HTTP_TOOLS_LIST_FILE`.
#[tokio::test]
#[ignore = "a helper: run by list_shows_where_each_tool_comes_from"]
async fn list_helper() {
    let Ok(file) = std::env::var("HTTP_TOOLS_LIST_FILE") else {
        return;
    };
    for args in [vec!["list"], vec!["list", "--json"]] {
        let mut all = vec!["toolbox", "--registry", file.as_str()];
        all.extend(args);
        println!("=== {}", all[3..].join(" "));
        let code = tool_cli::run_async(Registry::builder().build().unwrap(), all).await;
        assert_eq!(code, std::process::ExitCode::SUCCESS);
    }
    println!("=== end");
}

#[test]
fn list_shows_where_each_tool_comes_from() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tools.yaml");
    std::fs::copy(
        fixtures().join("petstore-3.0.json"),
        dir.path().join("petstore.json"),
    )
    .unwrap();
    std::fs::write(
        &file,
        "tools: [convert_length]\nhttp_tools:\n  - name: get_item\n    description: Gets an item.\n    \
         url: https://api.example.com:8443/items/{id}\n    parameters: [{id: {type: integer, required: true}}]\n\
         openapi:\n  petstore:\n    document: petstore.json\n    base_url: https://petstore.example.com/v2\n    \
         include: [getInventory]\n",
    )
    .unwrap();
    // This test binary, running the helper alone, its output not captured.
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "list_helper",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("HTTP_TOOLS_LIST_FILE", &file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let section = |marker: &str| -> String {
        let start = stdout
            .find(marker)
            .unwrap_or_else(|| panic!("{marker} in {stdout}"))
            + marker.len();
        let end = start + stdout[start..].find("=== ").unwrap();
        stdout[start..end].trim().to_owned()
    };
    let table = section("=== list\n");
    let column = |name: &str, n: usize| -> String {
        table
            .lines()
            .find(|line| line.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("{name} in\n{table}"))
            .split_whitespace()
            .nth(n)
            .unwrap()
            .to_owned()
    };
    let source = |name: &str| column(name, 1);
    assert_eq!(source("get_item"), "http:api.example.com:8443");
    assert_eq!(source("getInventory"), "openapi:petstore");
    assert_eq!(source("convert_length"), "examples");
    // An OpenAPI tool's source is followed by where its requests go.
    assert_eq!(column("getInventory", 2), "https://petstore.example.com");
    let listed: Value = serde_json::from_str(&section("=== list --json\n")).unwrap();
    let sources: Vec<(&str, &str)> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap(),
                tool["source"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        sources,
        [
            ("convert_length", "examples"),
            ("getInventory", "openapi:petstore"),
            ("get_item", "http:api.example.com:8443"),
        ]
    );
    let origins: Vec<(&str, Option<&str>)> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| (tool["name"].as_str().unwrap(), tool["origin"].as_str()))
        .collect();
    assert_eq!(
        origins,
        [
            ("convert_length", None),
            ("getInventory", Some("https://petstore.example.com")),
            ("get_item", Some("https://api.example.com:8443")),
        ]
    );
}

#[tokio::test]
async fn a_document_at_a_url_is_fetched_through_the_same_guards() {
    let document = std::fs::read_to_string(fixtures().join("petstore-3.1.json")).unwrap();
    // The document names a relative server, read against its own URL.
    let mut parsed: Value = serde_json::from_str(&document).unwrap();
    parsed["servers"] = json!([{"url": "/v2"}]);
    let document = parsed.to_string();
    let server = Server::start(move |seen| match seen.target.as_str() {
        "/openapi.json" => Reply {
            status: 200,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: document.clone(),
        },
        _ => Reply::json(200, json!({"available": 1})),
    });
    let file = format!(
        "openapi:\n  petstore:\n    document: {}/openapi.json\n    include: [getInventory]\n",
        server.url()
    );
    let (registry, loaded) = registry(&file, &[]);
    assert_eq!(loaded.tools[0].target, server.url());
    let answer = structured(&call(&registry, "getInventory", json!({})).await);
    assert_eq!(answer["body"], json!({"available": 1}));
    let targets: Vec<String> = server.requests().into_iter().map(|r| r.target).collect();
    assert_eq!(targets, ["/openapi.json", "/v2/store/inventory"]);
}

// ---- OpenAPI: credentials go only where the registry file says ----------

/// A document with one operation, `getItem`, whose API key goes in
/// `x-api-key`, and `servers` as given.
fn vendor_document(servers: Value) -> String {
    json!({
        "openapi": "3.1.0",
        "info": {"title": "Vendor", "version": "1"},
        "servers": servers,
        "components": {"securitySchemes": {
            "vendor_key": {"type": "apiKey", "in": "header", "name": "x-api-key"}
        }},
        "security": [{"vendor_key": []}],
        "paths": {"/items/{id}": {"get": {
            "operationId": "getItem",
            "summary": "Reads an item.",
            "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}]
        }}}
    })
    .to_string()
}

/// A server that answers `/openapi.json` with `document`, and anything else
/// with `{"item": true}`.
fn document_server(document: String) -> Server {
    Server::start(move |seen| match seen.target.as_str() {
        "/openapi.json" => Reply {
            status: 200,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: document.clone(),
        },
        _ => Reply::json(200, json!({"item": true})),
    })
}

const VENDOR_KEY: &str = "sk-secret-7f3a9";

#[test]
fn a_server_at_another_origin_is_refused_and_gets_nothing() {
    let elsewhere = Server::start_elsewhere(|_| Reply::json(200, json!({"stolen": true})));
    let home = document_server(vendor_document(
        json!([{"url": format!("{}/v1", elsewhere.url())}]),
    ));
    let file = format!(
        "openapi:\n  vendor:\n    document: {}/openapi.json\n    \
         auth: {{vendor_key: \"${{VENDOR_KEY}}\"}}\n",
        home.url()
    );
    let (manifest, loaded) = load(&file, &[("VENDOR_KEY", VENDOR_KEY)]);
    assert!(loaded.tools.is_empty());
    let error = loaded.error(&manifest).expect("refused").to_string();
    assert_eq!(
        error,
        format!(
            "tools.yaml:3:15: OpenAPI \"vendor\": {home}/openapi.json#/servers/0/url: the server \
             {elsewhere}/v1 is refused: its origin, {elsewhere}, is not the document's ({home}), \
             and requests (with the credentials of `auth` and `headers`) go only to an origin \
             the registry file names; add \"{elsewhere}\" to `allowed_origins` if it is meant, \
             or set `base_url`",
            home = home.url(),
            elsewhere = elsewhere.url(),
        )
    );
    assert!(!error.contains(VENDOR_KEY));
    assert!(!format!("{loaded:?}").contains(VENDOR_KEY));
    assert_eq!(elsewhere.requests().len(), 0);
    let fetched: Vec<String> = home.requests().into_iter().map(|r| r.target).collect();
    assert_eq!(fetched, ["/openapi.json"]);
    // The document's fetch carried no credential.
    assert!(home.requests()[0].header("x-api-key").is_none());
}

#[tokio::test]
async fn an_origin_the_entry_allows_is_reached() {
    let elsewhere = Server::start_elsewhere(|_| Reply::json(200, json!({"item": 1})));
    let home = document_server(vendor_document(
        json!([{"url": format!("{}/v1", elsewhere.url())}]),
    ));
    let file = format!(
        "openapi:\n  vendor:\n    document: {}/openapi.json\n    \
         allowed_origins: [\"{}\"]\n    auth: {{vendor_key: \"${{VENDOR_KEY}}\"}}\n",
        home.url(),
        elsewhere.url()
    );
    let (registry, loaded) = registry(&file, &[("VENDOR_KEY", VENDOR_KEY)]);
    assert_eq!(loaded.tools[0].target, elsewhere.url());
    let answer = structured(&call(&registry, "getItem", json!({"id": "1"})).await);
    assert_eq!(answer["body"], json!({"item": 1}));
    assert!(!answer.to_string().contains(VENDOR_KEY));
    let requests = elsewhere.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].target, "/v1/items/1");
    assert_eq!(requests[0].header("x-api-key"), Some(VENDOR_KEY));
    assert_eq!(home.requests().len(), 1);
}

#[tokio::test]
async fn base_url_is_the_target_whatever_the_servers_say() {
    let elsewhere = Server::start_elsewhere(|_| Reply::json(200, json!({"stolen": true})));
    let home = document_server(vendor_document(
        json!([{"url": format!("{}/v1", elsewhere.url())}]),
    ));
    let file = format!(
        "openapi:\n  vendor:\n    document: {url}/openapi.json\n    base_url: {url}/api\n    \
         auth: {{vendor_key: \"${{VENDOR_KEY}}\"}}\n",
        url = home.url()
    );
    let (registry, loaded) = registry(&file, &[("VENDOR_KEY", VENDOR_KEY)]);
    assert_eq!(loaded.tools[0].target, home.url());
    structured(&call(&registry, "getItem", json!({"id": "1"})).await);
    let targets: Vec<String> = home.requests().into_iter().map(|r| r.target).collect();
    assert_eq!(targets, ["/openapi.json", "/api/items/1"]);
    assert_eq!(elsewhere.requests().len(), 0);

    // `allowed_origins` has no use beside `base_url`; a bad origin is a
    // mistake at its place.
    let file = format!(
        "openapi:\n  vendor:\n    document: {url}/openapi.json\n    base_url: {url}/api\n    \
         allowed_origins: [\"{other}\", \"{other}/v1\", 3]\n",
        url = home.url(),
        other = elsewhere.url()
    );
    let (manifest, loaded) = load(&file, &[]);
    let error = loaded.error(&manifest).expect("mistakes").to_string();
    let line = file.lines().nth(4).unwrap();
    let column = |needle: &str| line.find(needle).unwrap() + 1;
    let other = elsewhere.url();
    assert_eq!(
        error.lines().collect::<Vec<_>>(),
        [
            "tools.yaml:5:5: OpenAPI \"vendor\": `allowed_origins` is for the document's `servers` entry, which `base_url` replaces: requests go to `base_url` alone; remove one of them".to_owned(),
            format!(
                "tools.yaml:5:{}: OpenAPI \"vendor\": \"{other}/v1\" is not an origin: it has a path, a query or a fragment; write a scheme, a host and an optional port, such as \"https://api.example.com:8443\"",
                column(&format!("\"{other}/v1\""))
            ),
            format!(
                "tools.yaml:5:{}: OpenAPI \"vendor\": an origin is text, such as \"https://api.example.com:8443\"",
                column("3]")
            ),
        ]
    );
}

#[tokio::test]
async fn a_redirect_to_another_origin_is_refused_and_gets_nothing() {
    let elsewhere = Server::start_elsewhere(|_| Reply::json(200, json!({"stolen": true})));
    let target = format!("{}/collect", elsewhere.url());
    let document = vendor_document(json!([{"url": "/v1"}]));
    let home = Server::start(move |seen| match seen.target.as_str() {
        "/openapi.json" => Reply {
            status: 200,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: document.clone(),
        },
        _ => Reply {
            status: 302,
            headers: vec![("Location".into(), target.clone())],
            body: String::new(),
        },
    });
    let file = format!(
        "openapi:\n  vendor:\n    document: {}/openapi.json\n    \
         auth: {{vendor_key: \"${{VENDOR_KEY}}\"}}\n",
        home.url()
    );
    let (registry, loaded) = registry(&file, &[("VENDOR_KEY", VENDOR_KEY)]);
    assert_eq!(loaded.tools[0].target, home.url());
    let result = call(&registry, "getItem", json!({"id": "1"})).await;
    assert!(!result.is_success());
    let text = result.text_content();
    assert!(text.contains("which is not followed"), "{text}");
    assert!(text.contains(&elsewhere.addr.to_string()), "{text}");
    assert!(!text.contains(VENDOR_KEY), "{text}");
    assert_eq!(elsewhere.requests().len(), 0);
    // The first hop, to the document's own origin, carried the key.
    assert_eq!(
        home.requests().last().unwrap().header("x-api-key"),
        Some(VENDOR_KEY)
    );
}

#[test]
fn a_document_from_a_file_needs_base_url() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("vendor.json"),
        vendor_document(json!([{"url": "http://127.0.0.1:9/v1"}])),
    )
    .unwrap();
    let load_in_dir = |text: &str| {
        let manifest = Manifest::parse_with("tools.yaml", text, http_tools::SECTIONS).unwrap();
        let options = LoadOptions::new()
            .env(|name| (name == "VENDOR_KEY").then(|| VENDOR_KEY.to_owned()))
            .base_dir(dir.path());
        let loaded = http_tools::load_with(&manifest, &options);
        (manifest, loaded)
    };
    let (manifest, loaded) = load_in_dir(
        "openapi:\n  vendor:\n    document: vendor.json\n    auth: {vendor_key: \"${VENDOR_KEY}\"}\n",
    );
    assert!(loaded.tools.is_empty());
    let error = loaded.error(&manifest).expect("refused").to_string();
    assert_eq!(
        error,
        "tools.yaml:3:5: OpenAPI \"vendor\": set `base_url`: requests (with the credentials of \
         `auth` and `headers`) go only to an origin the registry file names, and this document \
         is read from a file; its first server is http://127.0.0.1:9/v1: write \
         `base_url: http://127.0.0.1:9/v1` if the requests go there"
    );
    assert!(!error.contains(VENDOR_KEY));

    // With `base_url`, the file's tools go there.
    let (manifest, loaded) = load_in_dir(
        "openapi:\n  vendor:\n    document: vendor.json\n    base_url: http://127.0.0.1:9/v1\n    \
         auth: {vendor_key: \"${VENDOR_KEY}\"}\n",
    );
    assert!(loaded.error(&manifest).is_none());
    assert_eq!(loaded.tools[0].target, "http://127.0.0.1:9");
}

#[tokio::test]
async fn a_document_at_a_url_without_servers_is_called_at_its_own_origin() {
    let mut document: Value = serde_json::from_str(&vendor_document(json!([]))).unwrap();
    document.as_object_mut().unwrap().remove("servers");
    let home = document_server(document.to_string());
    let file = format!(
        "openapi:\n  vendor:\n    document: {}/openapi.json\n    \
         auth: {{vendor_key: \"${{VENDOR_KEY}}\"}}\n",
        home.url()
    );
    let (registry, loaded) = registry(&file, &[("VENDOR_KEY", VENDOR_KEY)]);
    assert_eq!(loaded.tools[0].target, home.url());
    structured(&call(&registry, "getItem", json!({"id": "1"})).await);
    let targets: Vec<String> = home.requests().into_iter().map(|r| r.target).collect();
    assert_eq!(targets, ["/openapi.json", "/items/1"]);
}
