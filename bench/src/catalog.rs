//! A thousand tools as an agent with many integrations would have them:
//! services (a code host, chat, mail, billing, a CRM, cloud storage, smart
//! home, travel, ...) with a few kinds of object each, and the usual
//! actions on each kind (get, list, create, update, delete, search) plus
//! the ones particular to it (merge a pull request, refund a payment,
//! restart a pod). Names, descriptions and parameters are generated from
//! the table below, each with its own wording, for the tool-search test
//! and benchmark (`tests/tests/search.rs`, `bench/src/bin/tool_search.rs`).

use serde_json::{Map, Value, json};
use tool_runtime::{Tool, ToolContext, ToolSpec, spec::ToolFuture};

/// How many tools [`tools`] makes.
pub const COUNT: usize = 1000;

/// The services, one per unindented line (`prefix | label`), and under each
/// the kinds of object it holds (`entity | noun | plural | fields |
/// actions`): fields are `name: description` separated by `;`, actions
/// `verb: description` separated by `;`. A verb starting with `!` is the
/// tool's whole name after the service prefix.
const TABLE: &str = "
github | GitHub, the code host
  issue | issue | issues | title: Short summary of the problem; body: Markdown description of the bug or feature; labels: Labels such as bug or enhancement; assignee: Login of the person responsible | close: Close an issue as completed or not planned; reopen: Reopen a closed issue
  pull_request | pull request | pull requests | title: Title of the change; head: Branch with the changes; base: Branch to merge into; draft: Whether to open it as a draft | merge: Merge a pull request into its base branch once checks pass; request_review: Ask reviewers to review a pull request
  repository | repository | repositories | name: Repository name; private: Whether only members can see it; description: One-line summary of the project | fork: Fork a repository into your account
  release | release | releases | tag: Git tag of the release, e.g. v1.2.0; notes: Release notes in Markdown; prerelease: Whether it is a prerelease |
jira | Jira, the issue tracker
  issue | Jira ticket | Jira tickets | summary: One-line summary of the ticket; project: Project key, e.g. PAY; priority: Priority from lowest to highest; issue_type: Bug, task or story | transition: Move a Jira ticket to another workflow status such as in progress or done; assign: Assign a Jira ticket to a teammate
  sprint | sprint | sprints | name: Sprint name; goal: What the sprint should achieve; start_date: First day of the sprint | start: Start a planned sprint
slack | Slack, the team chat
  message | chat message | chat messages | channel: Channel name such as #general or a user ID; text: The message text, Markdown allowed; thread_ts: Reply inside this thread | send: Post a message to a Slack channel or a direct message; react: Add an emoji reaction to a message
  channel | channel | channels | name: Channel name without the #; topic: What the channel is about; private: Whether it is invite-only | archive: Archive a Slack channel; invite: Invite people to a Slack channel
  reminder | reminder | reminders | text: What to be reminded of; time: When, e.g. in 20 minutes or tomorrow at 9am |
gmail | Gmail, the mailbox
  message | email | emails | to: Recipient addresses; subject: Subject line; body: Message body; unread: Only unread messages | send: Send an email to one or more recipients; reply: Reply to an email in its thread; forward: Forward an email to someone else
  draft | email draft | email drafts | to: Recipient addresses; subject: Subject line; body: Message body |
  label | mail label | mail labels | name: Label name; color: Label color |
calendar | the calendar
  event | calendar event | calendar events | title: What the event is; start: Start date and time; end: End date and time; attendees: Email addresses of the people invited; location: Room or address | !schedule_meeting: Schedule a meeting with attendees at the first time everyone is free; rsvp: Accept or decline an event invitation
  calendar | calendar | calendars | name: Calendar name; timezone: Time zone of the calendar | share: Share a calendar with someone
zoom | Zoom, the video call service
  meeting | video meeting | video meetings | topic: Meeting topic; start_time: When it starts; duration: Length in minutes; password: Passcode to join | end: End a running video call for everyone
  recording | call recording | call recordings | meeting_id: The meeting recorded; format: mp4 or m4a |
twilio | Twilio, the phone and messaging service
  sms | SMS text message | SMS text messages | to: Phone number in E.164 form; body: Text of the message; from: Sending phone number | send: Send an SMS text message to a phone number
  call | phone call | phone calls | to: Phone number to call; from: Caller ID; script: What to say when answered | place: Place an automated phone call
stripe | Stripe, the payment processor
  payment | card payment | card payments | amount: Amount in cents; currency: Three-letter currency code; customer: Customer ID; description: What the payment is for | refund: Refund a card payment to the customer, fully or in part; capture: Capture an authorised card payment
  customer | paying customer | paying customers | email: Customer email; name: Full name; default_card: Card charged by default |
  payout | payout | payouts | amount: Amount in cents; destination: Bank account that receives it |
billing | the billing system
  invoice | invoice | invoices | customer: Who is billed; line_items: Products and quantities; due_date: When payment is due; currency: Currency of the invoice | send: Email an invoice to the customer; pay: Mark an invoice as paid or pay it with the card on file; void: Void an invoice issued by mistake
  subscription | subscription | subscriptions | plan: Plan name such as pro or team; customer: Who subscribes; seats: Number of seats; trial_days: Length of the free trial | cancel: Cancel a subscription at the end of the billing period; pause: Pause a subscription's billing
  coupon | discount coupon | discount coupons | percent_off: Discount in percent; duration: Once, repeating or forever; code: Code customers type |
crm | the CRM
  contact | contact | contacts | name: Full name; email: Email address; company: Company they work for; phone: Phone number | merge: Merge two duplicate contacts into one
  deal | sales deal | sales deals | name: Deal name; amount: Expected revenue; stage: Pipeline stage, e.g. qualified, proposal or closed won; owner: Sales rep responsible | !move_deal_stage: Move a sales deal to another pipeline stage such as closed won or lost
  account | customer account | customer accounts | name: Company name; industry: Industry sector; employees: Head count |
  lead | sales lead | sales leads | email: Email of the prospect; source: Where the lead came from; score: Lead score from 0 to 100 | convert: Convert a qualified lead into a contact and a deal
zendesk | Zendesk, the customer support desk
  ticket | support ticket | support tickets | subject: What the customer needs; requester: Customer email; priority: Low, normal, high or urgent; status: New, open, pending or solved | escalate: Escalate a support ticket to the second-level team; solve: Mark a support ticket as solved
  macro | support macro | support macros | title: Macro name; actions: Changes the macro applies |
hr | the HR system
  employee | employee | employees | name: Full name; department: Team or department; manager: Who they report to; start_date: First working day | offboard: Offboard an employee who is leaving: revoke access and collect equipment
  leave_request | leave request | leave requests | employee: Who asks for time off; start: First day away; end: Last day away; kind: Vacation, sick leave or parental leave | approve: Approve an employee's vacation or other leave request; reject: Decline a leave request with a reason
  job_posting | job posting | job postings | title: Role title; location: Office or remote; salary_range: Salary band |
payroll | the payroll service
  payslip | payslip | payslips | employee: Whose pay; month: Pay period |
  pay_run | pay run | pay runs | period: Pay period; bonus: Extra pay included | submit: Submit a pay run for payment
shipping | the shipping carrier
  shipment | parcel shipment | parcel shipments | tracking_number: Carrier tracking number; destination: Delivery address; weight: Weight in kilograms | track: Track a package: where the shipment is and when it will be delivered
  label | shipping label | shipping labels | shipment: Shipment to label; format: PDF or ZPL; carrier: Carrier such as UPS or DHL | print: Print a shipping label for a parcel
  pickup | courier pickup | courier pickups | address: Where to collect the parcels; date: Pickup day |
inventory | the warehouse inventory
  product | product | products | sku: Stock keeping unit; name: Product name; price: Unit price; category: Product category |
  stock_level | stock level | stock levels | sku: Product SKU; warehouse: Warehouse code; quantity: Units on hand | adjust: Adjust how many units of a product are in stock after a count
  purchase_order | purchase order | purchase orders | supplier: Who supplies it; items: Products and quantities to order; expected: Expected delivery date | receive: Receive the goods of a purchase order into stock
shop | the online shop
  order | customer order | customer orders | customer: Who ordered; items: Products and quantities; shipping_address: Where to deliver; status: Pending, paid, shipped or delivered | fulfill: Fulfil an order and notify the customer it shipped; cancel: Cancel an order before it ships
  cart | shopping cart | shopping carts | customer: Whose cart; items: Products in the cart |
  review | product review | product reviews | product: Product reviewed; rating: Stars from 1 to 5; text: Review text | moderate: Hide or publish a product review
k8s | Kubernetes, the container cluster
  pod | pod | pods | namespace: Kubernetes namespace; name: Pod name; container: Container inside the pod | restart: Restart a crashed or stuck pod; logs: Read the logs of a pod's container
  deployment | deployment | deployments | namespace: Kubernetes namespace; image: Container image and tag; replicas: Number of replicas | scale: Scale a deployment to a number of replicas; rollback: Roll a deployment back to its previous revision
  service | cluster service | cluster services | namespace: Kubernetes namespace; port: Port exposed; selector: Pods it routes to |
docker | Docker, the container engine
  container | container | containers | image: Image to run; ports: Port mappings; env: Environment variables | stop: Stop a running container; exec: Run a command inside a running container
  image | container image | container images | name: Image name; tag: Image tag | build: Build a container image from a Dockerfile; push: Push a container image to a registry
s3 | Amazon S3, the object storage
  bucket | storage bucket | storage buckets | name: Bucket name; region: AWS region; versioning: Whether old versions are kept |
  object | stored object | stored objects | bucket: Bucket holding it; key: Object key (path); content_type: MIME type of the data | upload: Upload a file to an S3 bucket; download: Download a file from an S3 bucket; presign: Make a temporary download link for an object
ec2 | Amazon EC2, the virtual machines
  instance | virtual machine instance | virtual machine instances | instance_type: Size such as t3.micro; ami: Machine image; region: AWS region | start: Start a stopped virtual machine; stop: Stop a running virtual machine; reboot: Reboot a virtual machine
  security_group | firewall security group | firewall security groups | name: Group name; ingress: Inbound rules; egress: Outbound rules |
dns | the DNS provider
  record | DNS record | DNS records | zone: Domain zone; type: A, AAAA, CNAME, MX or TXT; value: What the record points to; ttl: Time to live in seconds |
  domain | domain name | domain names | name: Domain name; auto_renew: Whether it renews itself | renew: Renew a domain name registration; transfer: Transfer a domain to another registrar
database | the SQL database
  query | SQL query | SQL queries | sql: The SQL statement; database: Database name; timeout: Seconds before it is stopped | run: Run a SQL query against the Postgres database and return the rows; explain: Show the query plan of a SQL statement
  backup | database backup | database backups | database: Database to back up; retention_days: How long to keep it | restore: Restore a database from a backup
  table | database table | database tables | name: Table name; columns: Column definitions; schema: Database schema | truncate: Delete every row of a table
ci | the CI service
  pipeline | CI pipeline | CI pipelines | branch: Git branch to build; commit: Commit to build; variables: Build variables | trigger: Trigger a CI build pipeline for a branch; retry: Retry a failed CI job
  artifact | build artifact | build artifacts | pipeline: Pipeline that produced it; path: File path inside the artifact |
pagerduty | PagerDuty, the on-call service
  incident | incident | incidents | title: What is broken; service: Affected service; urgency: High or low; details: What was observed | acknowledge: Acknowledge an incident so the on-call engineer stops being paged; resolve: Resolve an incident once the outage is over; !page_oncall: Page the on-call engineer about an outage
  schedule | on-call schedule | on-call schedules | name: Schedule name; time_zone: Time zone; layers: Rotation layers | override: Take over someone's on-call shift
monitoring | the metrics and alerting service
  metric | metric | metrics | name: Metric name such as cpu.usage or http.latency; window: Time window such as the last hour; host: Host or service | !query_metrics: Show metrics such as CPU usage or latency over a time window
  alert | alert rule | alert rules | name: Rule name; condition: When it fires; channel: Where notifications go | mute: Silence an alert's notifications for a while, e.g. during maintenance
  dashboard | dashboard | dashboards | title: Dashboard title; panels: Charts on it |
logs | the log search service
  entry | log entry | log entries | query: Text or field filter; since: Start of the time range; level: Error, warning or info | tail: Follow new log lines as they arrive
auth | the identity provider
  user | user account | user accounts | email: Login email; role: Admin, member or viewer; mfa: Whether two-factor authentication is on | !reset_password: Send a user a link to reset their password; lock: Lock a user account after suspicious sign-ins
  api_key | API key | API keys | name: What the key is for; scopes: Permissions it grants; expires: Expiry date | rotate: Rotate an API key: issue a new secret and revoke the old one
  group | user group | user groups | name: Group name; members: Users in it |
weather | the weather service
  forecast | weather forecast | weather forecasts | city: City name, e.g. Lisbon; days: Days ahead, 1 to 14; units: Celsius or Fahrenheit |
  alert | severe weather alert | severe weather alerts | region: Region or city; severity: Minor, moderate or severe |
  air_quality | air quality reading | air quality readings | city: City name; pollutant: PM2.5, ozone or NO2 |
maps | the maps service
  route | route | routes | origin: Start address; destination: End address; mode: Driving, walking, cycling or transit | !get_directions: Directions by car, on foot or by transit from one place to another, with travel time
  place | place | places | query: What to look for, e.g. coffee shop; near: Location to search around; open_now: Only places open now |
  geocode | geocoded address | geocoded addresses | address: Street address; country: Country code | reverse: Turn latitude and longitude into a street address
travel | the travel booking service
  flight | flight | flights | origin: Departure airport or city; destination: Arrival airport or city; date: Departure date; passengers: Number of travellers | book: Book a flight ticket between two cities; check_in: Check in for a flight and get the boarding pass
  hotel_booking | hotel reservation | hotel reservations | hotel: Hotel name; check_in: Arrival date; check_out: Departure date; guests: Number of guests | cancel: Cancel a hotel reservation and get the refund the rate allows
  car_rental | rental car | rental cars | pickup_location: Where to collect the car; pickup_date: When; car_class: Economy, compact or SUV |
finance | the market data service
  stock_quote | stock quote | stock quotes | symbol: Ticker symbol such as AAPL; exchange: Stock exchange |
  exchange_rate | currency exchange rate | currency exchange rates | base: Currency to convert from; quote: Currency to convert to; amount: Amount to convert | !convert_currency: Convert an amount of money from one currency to another, e.g. dollars to euros
  portfolio | investment portfolio | investment portfolios | name: Portfolio name; holdings: Positions held | rebalance: Rebalance a portfolio to its target weights
accounting | the bookkeeping system
  expense | expense | expenses | amount: How much was spent; category: Travel, meals or software; receipt: Photo of the receipt; date: When it was spent | approve: Approve an employee's expense report for reimbursement
  journal_entry | journal entry | journal entries | debit: Account debited; credit: Account credited; amount: Amount; memo: Why |
  tax_report | tax report | tax reports | period: Quarter or year; jurisdiction: Country or state | file: File a tax report with the authority
translation | the translation service
  text | text | texts | text: Text to translate; target_language: Language to translate into, e.g. French; source_language: Language of the text, detected when absent | translate: Translate text into another language; detect_language: Detect which language a text is written in
  glossary | translation glossary | translation glossaries | name: Glossary name; terms: Fixed translations of terms |
audio | the speech service
  recording | audio recording | audio recordings | url: Where the audio file is; language: Spoken language | transcribe: Transcribe speech in an audio recording to text
  voice | synthetic voice | synthetic voices | name: Voice name; gender: Voice gender; accent: Accent | !text_to_speech: Read text aloud with a synthetic voice and return the audio
images | the image service
  image | image | images | url: Where the image is; width: Width in pixels; height: Height in pixels; format: PNG, JPEG or WebP | generate: Generate an image from a text prompt; resize: Resize or crop a photo to a given width and height; describe: Describe what a picture shows
docs | the document editor
  document | document | documents | title: Document title; content: Text of the document; folder: Folder holding it | share: Share a document with people and set whether they can edit; export: Export a document as PDF or Word
  comment | document comment | document comments | document: Document commented on; text: The comment; resolved: Whether it is resolved |
sheets | Google Sheets, the spreadsheets
  spreadsheet | spreadsheet | spreadsheets | title: Spreadsheet title; sheets: Tabs to create | append_rows: Append rows of values at the end of a spreadsheet; read_range: Read the values of a range of cells such as A1:C10
  chart | spreadsheet chart | spreadsheet charts | range: Cells charted; kind: Bar, line or pie |
drive | the file storage drive
  file | file | files | name: File name; folder: Folder path; mime_type: Type of the file | upload: Upload a file to the drive; move: Move a file into another folder
  folder | folder | folders | name: Folder name; parent: Folder it sits in |
notes | the note-taking app
  note | note | notes | title: Note title; body: Note text in Markdown; tags: Tags to file it under | pin: Pin a note to the top
  notebook | notebook | notebooks | name: Notebook name; color: Cover color |
todo | the to-do list
  task | task | tasks | title: What to do; due: Due date such as Friday; priority: Low, medium or high; project: List the task is in | complete: Mark a task as done; snooze: Push a task's due date back
  project | to-do project | to-do projects | name: Project name; color: Project color |
news | the news service
  article | news article | news articles | topic: Subject such as climate or elections; source: Publisher; since: Oldest publication date |
  feed | news feed | news feeds | url: Feed URL; category: Feed category |
dictionary | the dictionary
  word | dictionary word | dictionary words | word: The word; language: Dictionary language | !get_definition: Look up what a word means, its definition and examples; !get_synonyms: Words with the same meaning as a given word
music | the music streaming service
  playlist | playlist | playlists | name: Playlist name; public: Whether others can see it; description: What it is for | add_to: Add a song or track to a playlist
  track | song | songs | title: Song title; artist: Performer; album: Album | play: Play a song on the current device; skip: Skip to the next song
home | the smart home hub
  light | light | lights | room: Room such as living room or kitchen; brightness: Brightness in percent; color: Light color | switch: Turn a light on or off, or dim it
  thermostat | thermostat | thermostats | target_temperature: Temperature to reach, in degrees; mode: Heat, cool or auto | !set_temperature: Set the thermostat to a target temperature in degrees
  lock | door lock | door locks | door: Which door; code: Access code | unlock: Unlock a door
recipes | the recipe book
  recipe | recipe | recipes | name: Dish name; ingredients: What goes in; cuisine: Cuisine such as Italian; minutes: Total cooking time |
  meal_plan | weekly meal plan | weekly meal plans | week: Week it covers; diet: Vegetarian, vegan or any | !shopping_list: Make a grocery shopping list from a meal plan
fitness | the fitness tracker
  workout | workout | workouts | kind: Running, cycling or strength; duration: Minutes; calories: Calories burned |
  sleep | sleep record | sleep records | date: Night recorded; hours: Hours slept; quality: Sleep score |
legal | the contract management system
  contract | contract | contracts | counterparty: Other party; value: Contract value; renewal_date: When it renews; terms: Key terms | !send_for_signature: Send a contract for electronic signature; review: Flag risky clauses in a contract
  nda | non-disclosure agreement | non-disclosure agreements | party: Who signs; mutual: Whether both sides are bound |
marketing | the email marketing service
  campaign | email campaign | email campaigns | subject: Subject line; audience: List or segment; send_at: When to send | send: Send an email campaign to an audience now; !ab_test: Split an email campaign into two variants and compare their open rates
  audience | mailing list | mailing lists | name: List name; double_opt_in: Whether sign-ups confirm | subscribe: Add someone to a mailing list; unsubscribe: Remove someone from a mailing list
analytics | the web analytics service
  report | traffic report | traffic reports | metrics: Page views, sessions or conversions; period: Date range; dimension: Breakdown such as country or page |
  funnel | conversion funnel | conversion funnels | steps: Pages or events in order; period: Date range |
  event | tracked event | tracked events | name: Event name; properties: Event properties | !track_event: Record a custom analytics event with properties
learning | the online course platform
  course | online course | online courses | title: Course title; level: Beginner, intermediate or advanced; language: Teaching language | enroll: Enroll a student in a course
  quiz | quiz | quizzes | course: Course it belongs to; questions: Questions and answers | grade: Grade a student's quiz answers
realestate | the property listings service
  listing | property listing | property listings | city: City; bedrooms: Number of bedrooms; max_price: Highest price; kind: Rent or sale |
  viewing | property viewing | property viewings | listing: Property to see; time: When | !book_viewing: Book a time to visit a property for rent or sale
health | the clinic booking service
  appointment | doctor appointment | doctor appointments | doctor: Doctor or specialty; time: Preferred time; reason: Why you need to see the doctor | reschedule: Move a doctor appointment to another time
  prescription | prescription | prescriptions | medication: Medicine name; dosage: Dose and frequency; pharmacy: Pharmacy to send it to | refill: Request a refill of a prescription
wiki | Confluence, the team wiki
  page | wiki page | wiki pages | title: Page title; body: Page content; space: Space it belongs to; parent: Parent page | publish: Publish a draft wiki page; move: Move a wiki page under another parent
  space | wiki space | wiki spaces | key: Short space key; name: Space name; public: Whether anyone can read it |
design | Figma, the design tool
  design_file | design file | design files | name: File name; project: Project holding it; team: Owning team | export: Export frames of a design file as PNG or SVG
  component | design component | design components | name: Component name; library: Library it is published in; variant: Variant name |
forms | the survey builder
  form | survey form | survey forms | title: Form title; questions: The questions asked; closes_at: When it stops taking answers | publish: Publish a survey form and get its link
  response | survey response | survey responses | form: Survey answered; answers: The answers; respondent: Who answered |
social | the social media scheduler
  post | social media post | social media posts | text: Post text; network: Twitter, LinkedIn or Instagram; publish_at: When to publish; media: Images attached | publish: Publish a social media post now; boost: Pay to promote a post
  account | social media account | social media accounts | network: Which network; handle: Account handle |
ads | the advertising platform
  ad_campaign | ad campaign | ad campaigns | name: Campaign name; budget: Daily budget; audience: Who sees the ads; objective: Clicks, reach or conversions | pause: Pause an ad campaign's spending
  ad | advert | adverts | headline: Headline; image: Image URL; landing_page: Where a click leads |
iot | the device fleet manager
  device | connected device | connected devices | serial: Serial number; firmware: Firmware version; site: Where it is installed | reboot: Reboot a connected device remotely; !update_firmware: Install new firmware on a connected device
  sensor_reading | sensor reading | sensor readings | device: Device that measured it; metric: Temperature, humidity or pressure; since: Start of the time range |
dining | the restaurant reservation service
  reservation | restaurant table reservation | restaurant table reservations | restaurant: Restaurant name; time: Date and time; party_size: Number of people | cancel: Cancel a restaurant table reservation
rides | the ride hailing service
  ride | taxi ride | taxi rides | pickup: Pickup address; dropoff: Destination; ride_type: Standard, XL or premium | request: Request a taxi ride to a destination now; cancel: Cancel a requested ride
food | the food delivery service
  delivery_order | food delivery order | food delivery orders | restaurant: Restaurant; items: Dishes ordered; address: Delivery address | track: Track when a food delivery will arrive; tip: Tip the courier
library | the public library
  book | library book | library books | title: Book title; author: Author; isbn: ISBN number | borrow: Borrow a book from the library; !return_book: Return a borrowed library book
tickets | the event ticketing service
  ticket | event ticket | event tickets | event: Concert, match or show; seats: Seat numbers; price: Price paid | transfer: Transfer an event ticket to a friend; resell: Put an event ticket up for resale
  venue | venue | venues | name: Venue name; city: City; capacity: Number of seats |
vault | the secrets vault
  secret | stored secret | stored secrets | name: Secret name; value: The secret value; expires: Expiry date | reveal: Reveal the value of a stored secret; share: Share a secret with a teammate for a limited time
cdn | the content delivery network
  cache | edge cache | edge caches | path: URL path or prefix; zone: CDN zone | purge: Purge cached files from the CDN so visitors get the new version
  certificate | TLS certificate | TLS certificates | domain: Domain covered; issuer: Certificate authority; expires: Expiry date | renew: Renew a TLS certificate before it expires
insurance | the insurance claims service
  claim | insurance claim | insurance claims | policy: Policy number; incident_date: When it happened; amount: Amount claimed; description: What happened | submit: Submit an insurance claim with photos; appeal: Appeal a rejected insurance claim
  policy | insurance policy | insurance policies | holder: Policy holder; coverage: What is covered; premium: Monthly premium |
";

/// A generated tool: its spec, and a call that returns its name and
/// arguments (the tests and benchmarks only search these tools).
#[derive(Debug, Clone)]
pub struct CatalogTool {
    spec: ToolSpec,
}

impl Tool for CatalogTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn takes_context(&self) -> bool {
        false
    }

    fn call<'a>(&'a self, input: &'a Value, _ctx: &'a ToolContext) -> ToolFuture<'a> {
        ToolFuture::ready(Ok(
            json!({"tool": self.spec.name, "arguments": input}).into()
        ))
    }
}

/// The first [`COUNT`] tools of the table, in table order.
pub fn tools() -> Vec<CatalogTool> {
    let mut tools = Vec::new();
    let mut service = ("", "");
    for line in TABLE.lines().filter(|line| !line.trim().is_empty()) {
        if !line.starts_with(' ') {
            let (prefix, label) = line.split_once(" | ").expect("a service line");
            service = (prefix.trim(), label.trim());
            continue;
        }
        let parts: Vec<&str> = line.trim().split(" |").map(str::trim).collect();
        let [entity, noun, plural, fields, actions] = parts[..] else {
            panic!("an entity line has five parts: {line}");
        };
        let fields = pairs(fields);
        let (prefix, label) = service;
        let plural_name = plural_snake(entity, plural);
        let name = |verb: &str, object: &str| format!("{prefix}_{verb}_{object}");
        let id = || {
            (
                format!("{entity}_id"),
                format!("ID of the {noun}"),
                json!({"type": "string"}),
            )
        };
        let field_params = |all: bool| -> Vec<(String, String, Value)> {
            fields
                .iter()
                .take(if all { fields.len() } else { 2 })
                .map(|(field, text)| (field.to_string(), text.to_string(), field_type(field)))
                .collect()
        };
        let f1 = fields.first().map_or("name", |f| f.0).replace('_', " ");
        let f2 = fields.get(1).map_or("details", |f| f.0).replace('_', " ");
        let mut add = |name: String,
                       description: String,
                       params: Vec<(String, String, Value)>,
                       required: usize| {
            tools.push(CatalogTool {
                spec: ToolSpec::new(name, description, schema(&params, required)),
            });
        };
        let mut get = vec![id()];
        get.extend(field_params(false).into_iter().take(1).map(|(f, t, s)| {
            (
                f,
                format!("Or look it up by this instead of the ID. {t}"),
                s,
            )
        }));
        add(
            name("get", entity),
            format!(
                "Fetch one {noun} from {label} by its ID or {f1}, with its {f2} and other details."
            ),
            get,
            0,
        );
        let mut list = vec![
            (
                "limit".into(),
                format!("How many {plural} to return, at most 100"),
                json!({"type": "integer", "minimum": 1, "maximum": 100}),
            ),
            (
                "cursor".into(),
                "Where the previous page ended".into(),
                json!({"type": "string"}),
            ),
        ];
        list.extend(
            field_params(true)
                .into_iter()
                .enumerate()
                .filter(|(i, (_, _, s))| *i < 2 || s["type"] == "boolean")
                .map(|(_, (f, t, s))| (f, format!("Only {plural} with this value. {t}"), s)),
        );
        add(
            name("list", &plural_name),
            format!("List {plural} in {label}, newest first, a page at a time; filter by {f1}."),
            list,
            0,
        );
        add(
            name("create", entity),
            format!("Create a new {noun} in {label}."),
            field_params(true),
            1,
        );
        let mut update = vec![id()];
        update.extend(field_params(true));
        add(
            name("update", entity),
            format!(
                "Change the {f1} or {f2} of an existing {noun} in {label}; fields left out keep their value."
            ),
            update,
            1,
        );
        add(
            name("delete", entity),
            format!("Permanently delete a {noun} from {label}. This cannot be undone."),
            vec![
                id(),
                (
                    "confirm".into(),
                    "Must be true; guards against accidental deletion".into(),
                    json!({"type": "boolean"}),
                ),
            ],
            2,
        );
        let matched: Vec<String> = fields
            .iter()
            .take(3)
            .map(|f| f.0.replace('_', " "))
            .collect();
        let mut search = vec![
            (
                "query".into(),
                format!("Words to look for in their {}", matched.join(", ")),
                json!({"type": "string"}),
            ),
            (
                "limit".into(),
                "How many results, at most 50".into(),
                json!({"type": "integer", "minimum": 1, "maximum": 50}),
            ),
        ];
        search.extend(
            field_params(true)
                .into_iter()
                .take(3)
                .map(|(f, t, s)| (f, format!("Narrow the results to this value. {t}"), s)),
        );
        add(
            name("search", &plural_name),
            format!(
                "Search {plural} in {label} by keyword, matching their {}.",
                matched.join(", ")
            ),
            search,
            1,
        );
        for (verb, description) in pairs(actions) {
            let tool_name = match verb.strip_prefix('!') {
                Some(whole) => format!("{prefix}_{whole}"),
                None => name(verb, entity),
            };
            let mut params = vec![id()];
            params.extend(field_params(false));
            params.push((
                "note".into(),
                format!("Optional note recorded with the change to the {noun}"),
                json!({"type": "string"}),
            ));
            add(tool_name, format!("{description} ({label})."), params, 1);
        }
    }
    tools.truncate(COUNT);
    assert_eq!(tools.len(), COUNT, "the table makes at least {COUNT} tools");
    tools
}

/// A registry of the generated tools. With `always_offer` entries (as for
/// `RegistryBuilder::always_offer`), every other tool is deferred and the
/// registry has `search_tools`; with none, nothing is deferred.
pub fn registry(always_offer: &[&str]) -> tool_runtime::Registry {
    let mut builder = tool_runtime::Registry::builder();
    for tool in tools() {
        builder = builder.tool(tool);
    }
    if !always_offer.is_empty() {
        builder = builder.always_offer(always_offer.iter().copied());
    }
    builder
        .build()
        .expect("the generated tools have unique names")
}

/// `a: text; b: text` as pairs.
fn pairs(list: &str) -> Vec<(&str, &str)> {
    list.split(';')
        .filter(|item| !item.trim().is_empty())
        .map(|item| {
            let (key, text) = item.split_once(':').expect("`key: text`");
            (key.trim(), text.trim())
        })
        .collect()
}

/// The snake-case plural of an entity (`pull_request` -> `pull_requests`).
fn plural_snake(entity: &str, plural: &str) -> String {
    let last = plural.rsplit(' ').next().unwrap_or(plural);
    match entity.rsplit_once('_') {
        Some((head, _)) => format!("{head}_{last}"),
        None => last.to_owned(),
    }
}

/// A plausible JSON type for a field, by its name.
fn field_type(field: &str) -> Value {
    const NUMBERS: &[&str] = &[
        "amount",
        "price",
        "weight",
        "duration",
        "days",
        "seats",
        "replicas",
        "port",
        "ttl",
        "bedrooms",
        "max_price",
        "minutes",
        "hours",
        "calories",
        "score",
        "employees",
        "value",
        "width",
        "height",
        "brightness",
        "target_temperature",
        "rating",
        "percent_off",
        "passengers",
        "guests",
        "quantity",
        "timeout",
        "retention_days",
        "trial_days",
        "bonus",
    ];
    const FLAGS: &[&str] = &[
        "private",
        "draft",
        "prerelease",
        "unread",
        "public",
        "versioning",
        "auto_renew",
        "mfa",
        "open_now",
        "resolved",
        "mutual",
        "double_opt_in",
    ];
    const LISTS: &[&str] = &[
        "labels",
        "attendees",
        "line_items",
        "items",
        "to",
        "tags",
        "members",
        "scopes",
        "ports",
        "questions",
        "panels",
        "holdings",
        "steps",
        "columns",
        "sheets",
        "ingredients",
        "layers",
        "actions",
        "terms",
        "ingress",
        "egress",
    ];
    if NUMBERS.contains(&field) {
        json!({"type": "number"})
    } else if FLAGS.contains(&field) {
        json!({"type": "boolean"})
    } else if LISTS.contains(&field) {
        json!({"type": "array", "items": {"type": "string"}})
    } else {
        json!({"type": "string"})
    }
}

/// An object schema of `params`, the first `required` of them required.
fn schema(params: &[(String, String, Value)], required: usize) -> Value {
    let mut properties = Map::new();
    for (name, description, schema) in params {
        let mut schema = schema.clone();
        schema["description"] = Value::String(description.clone());
        properties.insert(name.clone(), schema);
    }
    let required: Vec<&str> = params.iter().take(required).map(|p| p.0.as_str()).collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}
