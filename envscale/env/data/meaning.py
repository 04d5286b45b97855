"""What a column means, as a meaning string read from its name, its table, its description and its arguments.

`column_meaning` returns strings such as `"person"`, `"email"`, `"date:-730:0"` (a window in days
from the clock), `"num:money"`, `"lex:unit"`, `"named:team"`, `"status:order"`, `"title:movie"`,
`"text:note"`, `"id"`, `"enum"` or `"unknown"`; the value makers (`values`) and the filler checks
(`filler`) both read them. The rules are mostly tables of words: exact column names
(`EXACT_MEANINGS`), compound names whose most specific part wins (`_COMPOUNDS`: `email_address` is
an email, `phone_number` a phone, `zip_code` a zip code), the entity of an `<entity>_name`
(`ENTITY_MEANINGS`), the words of a name read from the last (`TOKEN_MEANINGS`), phrases of
descriptions (`_DESC_RULES`), date windows (`_DATE_WINDOWS`) and kinds of numbers (`_NUMBER_KINDS`).
The items of a list column come from its singular (`item_meaning`: `product_list` holds products,
`ingredients` ingredients); a `parent` column is a key of its own table.

Also here, what the spec says about a column's values (`named_values`, formats and bounds stated in
descriptions), the columns that reference a table by name (`implicit_references`) and the generator
hint closest to a meaning (`infer_hint`).

Example:

```python
>>> from envscale.env.data import column_meaning
>>> column_meaning("players", "name", {"type": "string"})
'person'
>>> column_meaning("products", "name", {"type": "string"})
'named:product'
>>> column_meaning("orders", "due_date", {"type": "string"})
'date:1:365'
>>> column_meaning("orders", "total", {"type": "number"})
'num:money'
```
"""

from __future__ import annotations

import functools
import html
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from envscale.env.data.vocabulary import LEXICONS, norm
from envscale.env.spec import GENERATORS
from envscale.words.inflect import singular
from envscale.words.names import glued_words, name_words

# ----------------------------------------------------------------------------------------------
# The words of a name (split by `envscale.words.names.name_words`).

KEPT_SINGULARS = {"apis": "apis", "movies": "movy", "sizes": "size", "statuses": "statuse", "uris": "uris"}
"""The generator's own readings of five plurals, from before it read names with `words.inflect.singular`.

The quickstart's generated data depends on each (its state hashes, and the gold states of the tasks made
on them), so they are kept: a `movies` table's titles are made-up `Vega Movy` names (with `movie` they are
film titles), `apis` rows are named `Argon Apis` (`Argon Api`), `sizes` lists hold clothing sizes (`siz`
would give random words), and `statuses` and `uris` lists draw other values. Dropping an entry changes the
data of every environment with such a table or column."""


def singular_word(word: str) -> str:
    """`envscale.words.inflect.singular`, but for the generator's own readings in `KEPT_SINGULARS`."""
    return KEPT_SINGULARS.get(word) or singular(word)


def lower_tokens(value: str) -> list[str]:
    return re.findall(r"[a-z]+", value.lower())


def mapping(text: str) -> dict[str, str]:
    """`meaning: word word ...` lines -> `{word: meaning}`."""
    out: dict[str, str] = {}
    for line in text.strip().splitlines():
        meaning, words = line.split(": ", 1)
        out.update(dict.fromkeys(words.split(), meaning))
    return out


# ----------------------------------------------------------------------------------------------
# What the words of a name mean: people, companies and products; entities of `<entity>_name`;
# words read from the last; exact names.

_PERSON_WORDS = frozenset(
    "customer user employee member passenger patient student author contact staff people person client "
    "guest owner agent driver player artist director manager assignee reporter doctor physician "
    "therapist stylist teacher instructor coach recipient sender receiver speaker candidate reviewer "
    "approver creator organizer attendee winner captain referee pilot representative supervisor "
    "lawyer attorney judge criminal suspect victim buyer seller tenant landlord friend spouse composer "
    "writer painter sculptor actor actress singer musician chef nurse dentist witness defendant "
    "plaintiff recruiter mentor athlete traveler traveller visitor volunteer subscriber follower "
    "applicant holder beneficiary signer requester assigned full display contestant opponent "
    "partner leader founder ceo host_person cast director_person worker employer_contact interviewer "
    "president scientist celebrity cardholder performer maintainer prophet pope inventor explorer "
    "monarch king queen emperor spouse learner trainee participant panelist consumer coordinator "
    "professional debtor lead admin applicant lyricist arranger moderator conductor narrator illustrator "
    "translator photographer".split()
)
_COMPANY_WORDS = frozenset(
    "company organization organisation org business firm vendor supplier employer publisher "
    "manufacturer corporation enterprise startup merchant agency provider distributor retailer "
    "developer_company studio label_company brand_owner insurer lender".split()
)
_PRODUCT_WORDS = frozenset(
    "product item good catalog catalogue inventory sku listing merchandise article offer menu "
    "order_item cart_item line_item".split()
)
# The entity of a `<entity>_name` column or a `name` column of an `<entity>s` table -> its meaning.
ENTITY_MEANINGS = mapping(
    """
city: city town
country: country
state: state province
named:district: county district sub neighborhood neighbourhood
lex:region: region
street: street
named:team: team club
named:hotel: hotel hotelname
named:restaurant: restaurant
named:museum: museum gallery
named:venue: venue theater theatre cinema stadium
named:building: building property apartment place
named:event: event concert
named:festival: festival
named:movie: movie film show series
named:song: song track
named:album: album
named:book: book novel
named:game: game
named:artwork: artwork painting sculpture
named:project: project app ship
lex:branch: repo
named:school: school university college
named:hospital: hospital clinic
named:park: park
named:store: store shop branch
named:room: room
named:course: course
lex:class_name: class
named:battle: battle
named:tournament: tournament competition
lex:league: league
lex:airline: airline
airport: airport
lex:bank: bank
lex:brand: brand
lex:device: device
lex:ml_model: model
lex:dish: dish recipe meal food
lex:instrument: instrument
lex:species: species animal
lex:planet: planet
lex:religion: religion
lex:sport: sport
lex:genre: genre
lex:db_name: db database
lex:db_table: table
lex:db_field: column field
filename: file
directory: directory folder
lex:component: component
lex:identifier: function variable string
username: user
domain: host server domain
currency: currency
language: language
color: color colour
named:product: product item
named:character: character
lex:dataset: dataset
lex:namespace: namespace
lex:tag: label tag
lex:category: category event_type
lex:exchange: exchange
named:station: station
lex:disease: disease illness
lex:gene: gene protein
lex:star: star
lex:party: party
lex:service: service
first_name: pet
lex:substance: element
named:library: library
company: organization company
named:discovery: discovery
lex:crime: crime
lex:ticker: stock
"""
)
# The last word of a column name -> its meaning (first match wins after the rules in `string_meaning`).
TOKEN_MEANINGS = mapping(
    """
text: description desc details notes note comment comments body content message msg text bio about greeting
text: review reviews feedback statement answer reply response explanation reason instructions
text: instruction requirements requests remarks excerpt abstract story prompt question transcript memo
text: changelog newtext newcontent narrative overview caption plot synopsis biography announcement
text: post tweet email_body script lyrics
title: title subject headline summary topic heading
query: query q search keyword term searchterm keywordsearch filter phrase
lex:tag: tag tags label labels keywords hashtag hashtags
lex:category: category categories subcategory segment topics
lex:genre: genre genres
lex:sport: sport
lex:cuisine: cuisine
lex:diet: diet
lex:species: species animal pet
lex:breed: breed
lex:substance: substance compound chemical element gas particle molecule
lex:planet: planet
lex:religion: religion
lex:instrument: instrument
lex:material: material fabric fabricname
lex:platform: platform
lex:league: league
lex:exchange: exchange
lex:ticker: symbol ticker stock
lex:crime: crime
lex:size: size
lex:shape: shape
lex:priority: priority
lex:level: level difficulty severity
lex:disease: disease illness diagnosis ailment
lex:gene: gene protein
lex:service: service
lex:hobby: hobby hobbies interest interests
lex:star: star
lex:party: party
lex:zodiac: zodiac sign
lex:crop: crop
lex:industry: sector industry_sector
lex:encoding: encoding charset
lex:format: format
lex:os: os
lex:browser: browser
lex:card_suit: suit
lex:card_rank: rank
lex:card: card
lex:fuel: fuel
lex:room_type: roomtype
lex:cabin: cabin
lex:dish: dish recipe meal food
lex:unit: unit units scale system
lex:gender: gender sex
lex:nationality: nationality
lex:position: position
lex:specialty: specialization specialty speciality
lex:condition: condition weather
lex:mode: mode
lex:action: action operation
lex:medium: medium
lex:theme: theme
lex:style: style
lex:era: era
lex:court: court
state: jurisdiction state province
lex:role: role
lex:department: department
lex:industry: industry
lex:skill: skill skills
lex:pronouns: pronouns pronoun
lex:salutation: salutation honorific
lex:marital: marital_status maritalstatus marital
lex:plan: plan tier subscription
lex:weekday: weekday
lex:frequency: frequency interval
lex:channel: channel
lex:source: source
location: origin location loc place destination where
lex:scope: scope permission permissions
lex:delimiter: delimiter separator
lex:resolution: resolution
lex:direction: direction
lex:region: region
lex:continent: continent
lex:car_make: make
lex:car_model: vehicle car
lex:airline: airline airlines
lex:carrier: carrier
lex:bank: bank
lex:brand: brand
lex:device: device
lex:ml_model: model tokenizer
lex:command: command cmd
lex:math: equation formula expression
lex:dna: sequence
lex:season: season
lex:environment: environment
lex:protocol: protocol
lex:sound: sound ringtone
lex:month: month
lex:namespace: namespace
lex:db_table: table
lex:db_name: database db
lex:db_field: field column attribute
lex:identifier: variable var stateproperty func function callback
lex:class_name: class
lex:component: component componentname
lex:dataset: dataset
lex:branch: branch
lex:config: config configuration
lex:ingredient: ingredient ingredients
lex:amenity: amenity amenities facility facilities
slug: slug
secret:hash: etag
city: city town
country: country
named:district: county district neighborhood
named:venue: venue
address: address
street: street
zip: zip zipcode postcode
airport: airport
timezone: timezone tz
url: url uri link website homepage endpoint href webhook
domain: domain host hostname server
ip: ip
path: path filepath repo repository
filename: file filename
directory: dir directory folder
mime: mime
email: email bcc cc
phone: phone mobile tel telephone fax cell
currency: currency
language: language lang
locale: locale
color: color colour
version: version
code:sku: sku
code:isbn: isbn
code:iban: iban
code:ean: ean upc barcode
code:cik: cik
code:cpe: cpe
code:purl: purl
code:vin: vin
code:plate: plate
code:generic: code
code:number: number
code:tracking: tracking
code:ref: reference ref confirmation
uuid: uuid guid
secret:token: token secret nonce salt authorization
secret:password: password passwd pwd
secret:pin: passcode pin otp
secret:apikey: apikey
secret:key: key thekey
secret:hash: hash checksum signature sha fingerprint
secret:cursor: cursor marker continue
secret:bcrypt: encryptedpassword
job: job occupation profession jobtitle
named:team: team
named:project: project
named:product: product item
named:event: event
named:festival: festival
named:movie: movie film show
named:song: song track
named:album: album
named:book: book
named:game: game
named:artwork: artwork painting
named:museum: museum
named:hotel: hotel
named:restaurant: restaurant
named:school: school university
named:hospital: hospital
named:course: course
named:tournament: tournament competition
named:battle: battle
named:discovery: discovery
named:artist: artist band
status: status stage
user_agent: useragent
duration: duration
period: period timeframe window range quarter
year: year
time: time hour
date: date day
people: cast attendees participants members
company: company organization organisation employer vendor supplier publisher manufacturer studio
company: agency sponsor firm merchant
username: user login handle username usernames
code:account: account
url: logo picture icon banner favicon cover_image cover_photo profile_image profile_picture
lex:link_rel: rel
lex:visibility: visibility privacy
lex:emoji: emoji reaction
lex:file_extension: extension
lex:zone: zone
company: org
named:campaign: campaign
"""
)
EXACT_MEANINGS = mapping(
    """
first_name: first_name firstname given_name givenname fname forename nickname nick_name first preferred_name
first_name: preferredname preferred_first_name
last_name: last_name lastname surname family_name familyname lname last
middle_name: middle_name middlename middle_initial
person: full_name fullname display_name contact_name directed_by written_by created_by assigned_to
person: owned_by reported_by updated_by approved_by player assignee author owner reporter customer
person: receiver recipient sender
username: username user_name screen_name screenname login_name userid_name
country_code: country_code countrycode country_iso iso_country country_iso2 market available_market
currency: currency_code currencycode base quote_currency
lex:language_code: language_code lang_code languagecode iso_language
ip: ip_address ipaddress ipv4 ipv6 client_ip remote_addr ipaddr
mime: mime_type mimetype content_type media_type contenttype accept
user_agent: user_agent useragent
lex:room_type: room_type roomtype bed_type
lex:cabin: travel_class seat_class cabin_class flight_class class_of_service
lex:fuel: fuel_type fueltype engine_type
lex:property_type: property_type propertytype building_type home_type housing_type
lex:game_type: game_type deck_type gametype game_mode
lex:payment_method: payment_method payment_type paymentmethod pay_method refund_method refundmethod
lex:order_type: order_type ordertype trade_type side
lex:case_type: case_type casetype
lex:law_type: law_type area_of_law practice_area
lex:contract_type: contract_type employment_type job_type
lex:category: item_type product_type info_type event_type category_name
lex:device_type: device_type devicetype platform_type
lex:cuisine: food_type cuisine_type restaurant_type
lex:genre: music_genre movie_genre book_genre
lex:date_format: date_format dateformat time_format
lex:currency_format: currency_format money_format price_format amount_format number_format currencyformat
lex:level: detail_level skill_level experience_level difficulty_level risk_level age_group
lex:ticker: ticker_symbol stock_symbol stock_ticker company_ticker
lex:car_model: car_model vehicle_model car vehicle
lex:ml_model: model_name model_id_name pretrained_model base_model
secret:apikey: api_key apikey x_apikey x_api_key client_secret app_secret
secret:token: access_token refresh_token auth_token security_token session_token bearer_token
secret:token: captcha_response idempotency_key session_key
date:-32850:-6570: dob birthday birthdate birth_date date_of_birth born born_on
text: special_requests old_text new_text old_content new_content string_value memory_content
text: resolution_note failure_reason prompt_script
location: start_point end_point travel_from travel_to where_to from_location to_location
location: start_location end_location pickup_location dropoff_location shoplocation museum_location
location: meeting_point hometown from to loc
city: citya cityb city_a city_b city1 city2 from_city to_city start_city destination_city origin_city
city: departure_city arrival_city home_city
lex:tag: keywords tag_list
lex:blood_type: blood_type
street: line1 line_1 address1 address_1 street1 address_line_1 address_line1 addressline1 street_line_1
lex:address_unit: line2 line3 line_2 line_3 address2 address_2 address3 street2 address_line_2 address_line2
lex:address_unit: addressline2 address_line_3 address_line3 addressline3 street_line_2 street_2
state: state_code us_state
timezone: timezone_name target_timezone source_timezone time_zone
path: repo_path image img photo ssl_cert cert certificate launcher shardpath logfile img_path
path: image_path file_path backup_location storage_path output_path input_path save_path
url: avatar thumbnail website_url profile_image cover_image social_image banner_image header_image logo
lex:format: color_format
coord: coordinates coords latlng gps
lex:phase: phase_transition
lex:unit: temp_unit to_unit from_unit unit_in unit_out distance_unit weight_unit
code:ssn: ssn
code:plate: license_plate
code:card: credit_card card_number
code:account: account_number from_account to_account
code:routing: routing_number
code:swift: swift bic
code:ein: ein
code:ref: order_number invoice_number booking_reference
code:tracking: tracking_number tracking_id
code:flight: flight_number flight
code:isbn: isbn13 isbn10
phone: visitor_contact contact usermobilenumber
airport: origin_airport destination_airport departure_airport arrival_airport iata airport_code
lex:db_table: table
lex:season: semester
lex:http_method: method http_method request_method httpmethod event_method answer_method fallback_answer_method status_callback_method callback_method webhook_method sms_method voice_method eventmethod answermethod statuscallbackmethod callbackmethod
first_name: pet_name petname
person: spouse_of spouse_name
lex:service: streaming_service service_name
lex:os: operating_system operatingsystem os_name os_type
lex:branch: target_commitish base_ref head_ref default_branch base_branch head_branch target_branch
secret:hash: commit commit_sha head_sha base_sha merge_commit_sha sha1 sha256 md5 digest
code:sid: sid account_sid service_sid
code:arn: arn resource_arn role_arn
lex:aspect_ratio: aspect_ratio aspectratio
lex:type: object_type objecttype resource_type resourcetype entity_type
lex:outcome: conclusion outcome verdict
secret:key: pem
initials: initials
period: time_frame timeframe purchasing_time_frame buying_time_frame
lex:ethnicity: ethnicity ethnic_group race
lex:diet: dietary_preference dietary_preferences dietary_restriction dietary_restrictions diet_type
text: cover_letter motivation_letter
code:generic: taxcode tax_code vat_code
text:error: error error_message errormessage failure_message failure_reason_text error_details
text: detail status_message status_details
email: mail primary_email
"""
)


# ----------------------------------------------------------------------------------------------
# Dates, description phrases, and the contexts of titles and statuses.

# Words that make a date lie in the past / future / at birth (days from `now`: low, high).
_DATE_WINDOWS = (
    ({"dob", "birth", "birthday", "birthdate", "born"}, (-90 * 365, -18 * 365)),
    ({"last", "login", "seen", "visited", "accessed"}, (-60, 0)),
    (
        {
            "release",
            "released",
            "published",
            "founded",
            "established",
            "built",
            "discovered",
            "historical",
            "premiere",
            "aired",
        },
        (-30 * 365, -30),
    ),  # fmt: skip
    (
        {
            "due",
            "deadline",
            "expiry",
            "expiration",
            "expires",
            "expire",
            "renewal",
            "renew",
            "valid",
            "until",
            "next",
            "upcoming",
            "scheduled",
            "appointment",
            "reminder",
            "alarm",
            "followup",
            "eta",
            "estimated",
        },
        (1, 365),
    ),  # fmt: skip
    (
        {
            "check",
            "checkin",
            "checkout",
            "departure",
            "arrival",
            "return",
            "travel",
            "trip",
            "flight",
            "pickup",
            "dropoff",
            "visit",
            "event",
            "concert",
            "show",
            "movie",
            "journey",
            "booking",
            "reservation",
            "start",
            "end",
            "from",
            "to",
            "available",
            "meeting",
            "game",
            "match",
            "session",
            "class",
            "delivery",
            "service",
        },
        (1, 120),
    ),  # fmt: skip
)
PAST_WINDOW = (-730, 0)
_FUTURE_WORDS = frozenset(w for words, (lo, _) in _DATE_WINDOWS if lo > 0 for w in words)


def _date_window(name: str) -> str:
    words = set(name_words(name))
    for keys, (lo, hi) in _DATE_WINDOWS:
        if words & keys:
            return f"{lo}:{hi}"
    return f"{PAST_WINDOW[0]}:{PAST_WINDOW[1]}"


_TEXT_KEYS = ("description", "default", "examples", "title")


def column_texts(column_spec: dict[str, Any], arguments: Sequence[Any]) -> str:
    """The descriptions of a column and of the arguments bound to it, lowercased, as one text."""
    parts = [column_spec.get("description")] + [
        a.get("description") for a in arguments if isinstance(a, dict)
    ]
    return " ".join(p for p in parts if isinstance(p, str)).lower()


_DESC_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), meaning)
    for pattern, meaning in (
        (r"\b(?:file|folder|directory) path\b|\bpath (?:to|of|where)\b|\bfull path\b", "path"),
        (r"\be-?mail address\b", "email"),
        (r"\bcursor\b|\b(?:next|previous) page of\b|\bcontinuation token\b|\bpage token\b", "secret:cursor"),
        (r"\bhttp method\b|\bmethod \((?:get|post)", "lex:http_method"),
        (r"\bmerchant category code\b", "code:mcc"),
        (r"\busername\b|\buser name\b", "username"),
        (r"\bphone number\b|\bmobile number\b", "phone"),
        (r"\burl\b|\buri\b|\bweb address\b|\blink to\b", "url"),
        (r"\bip address\b|\bhostname\b|\bhost name\b", "domain"),
        (r"\buuid\b", "uuid"),
        (r"\b(?:zip ?code|postal code|post code)\b", "zip"),
        (r"\bcity and state\b|\bcity, state\b|'city, state|\bcity or town\b", "location"),
        (r"\b(?:name of|the) (?:the )?city\b|\bcity (?:name|where|of|in|that|you)\b", "city"),
        (r"\bu\.?s\.? state\b|\bstate abbreviation\b|\bname of the state\b", "state"),
        (r"\bcountry\b", "country"),
        (r"\bcurrency\b", "currency"),
        (r"\btime ?zone\b", "timezone"),
        (r"\blanguage\b", "language"),
        (r"\bcolou?r\b", "color"),
        (
            r"\b(?:api ?(?:key|token)|app(?:lication)? ?(?:key|token)|access token|auth(?:entication)? token|"
            r"password|secret|passphrase)\b",
            "secret:token",
        ),
        (r"\bversion\b", "version"),
        (r"\bidentifi(?:er|cation)\b|\bid (?:of|for)\b|\bunique id\b", "id"),
        (r"\bunits? (?:of|for|to|in)\b|\bmeasurement (?:unit|system)\b", "lex:unit"),
        (r"\bgenre\b", "lex:genre"),
        (r"\b(?:name of the|the) (?:sports )?team\b", "named:team"),
        (
            r"\b(?:name of the|the) (?:player|athlete|person|user|customer|artist|author|therapist|"
            r"doctor|stylist|driver|criminal|passenger|employee)\b",
            "person",
        ),  # fmt: skip
        (r"\b(?:name of the|the) (?:company|organization|business|firm)\b", "company"),
        (r"\b(?:name of the|the) (?:game|video game)\b", "named:game"),
        (r"\b(?:name of the|the) (?:movie|film)\b", "named:movie"),
        (r"\b(?:name of the|the) (?:song|track)\b", "named:song"),
        (r"\b(?:name of the|the) (?:hotel|accommodation)\b", "named:hotel"),
        (r"\b(?:name of the|the) (?:restaurant)\b", "named:restaurant"),
        (r"\b(?:name of the|the) (?:museum|gallery)\b", "named:museum"),
        (r"\b(?:name of the|the) (?:event|festival|concert)\b", "named:event"),
        (r"\b(?:name of the|the) (?:project|repository|repo)\b", "named:project"),
        (r"\b(?:name of the|the) (?:league)\b", "lex:league"),
        (r"\bsearch (?:query|term|string|keyword)s?\b|\bkeywords? to search\b", "query"),
        (r"\b(?:the )?(?:text|message|content|body|description|question|prompt)\b", "text"),
        (r"\bstatus\b", "status"),
        (r"\bdate\b", "date"),
        (r"\btime\b", "time"),
        (r"\bsymbol\b|\bticker\b", "lex:ticker"),
    )
)


_NOT_IDS = frozenset(
    "paid valid void android fluid hybrid grid squid rapid vivid solid liquid humid avid acid".split()
)
_TITLE_CONTEXTS = (
    ({"product", "item", "good", "listing", "merchandise", "catalog", "inventory", "offer"}, "product"),
    ({"movie", "film", "show", "series", "episode", "cinema", "release", "screening"}, "movie"),
    ({"book", "novel", "publication", "library", "ebook", "manuscript"}, "book"),
    ({"song", "track", "music", "playlist", "lyric", "chord"}, "song"),
    ({"album", "record"}, "album"),
    ({"game", "videogame"}, "game"),
    ({"artwork", "painting", "sculpture", "art", "exhibit", "exhibition"}, "artwork"),
    (
        {"job", "position", "employee", "leader", "role", "staff", "vacancy", "opening", "hire", "candidate"},
        "job",
    ),
    # a support ticket is a customer's problem ("Refund not received for order #4821"), never an engineer's task
    ({"ticket", "case", "incident", "claim", "complaint", "inquiry", "enquiry"}, "ticket"),
    ({"task", "issue", "todo", "bug", "request", "story"}, "task"),
    ({"event", "concert", "festival", "meetup", "conference", "webinar"}, "event"),
    ({"course", "class", "lesson", "lecture", "module", "training"}, "course"),
)
_STATUS_CONTEXTS = (
    ({"order", "shipment", "delivery", "package", "parcel", "cart", "purchase"}, "order"),
    ({"payment", "invoice", "transaction", "charge", "refund", "bill", "payout", "transfer"}, "payment"),
    ({"ticket", "issue", "task", "bug", "incident", "case", "request", "todo", "claim", "job"}, "ticket"),
    ({"booking", "reservation", "appointment", "flight", "trip", "visit", "rental"}, "booking"),
    ({"lock", "door", "lockstatus"}, "lock"),
    (
        {"light", "headlight", "headlightstatus", "lamp", "switch", "power", "cruise", "cruisestatus"},
        "switch",
    ),
    ({"brake", "parkingbrake", "parkingbrakestatus", "brakepedalstatus", "pedal"}, "brake"),
    (
        {
            "engine",
            "enginestate",
            "server",
            "service",
            "machine",
            "instance",
            "container",
            "pipeline",
            "build",
        },
        "run",
    ),
    ({"user", "account", "member", "customer", "subscription", "profile", "employee", "license"}, "account"),
)

PERSON_TOKENS = frozenset(
    "name full first last given family surname middle email mail address username user login handle "
    "display contact e firstname lastname fullname displayname givenname familyname emailaddress".split()
)
PLACE_TOKENS = frozenset(
    "city town state province country code iso zip zipcode postcode postal address street location loc "
    "timezone tz latitude longitude lat lon lng region line".split()
)


def _context(words: Iterable[str], table: str, contexts: Sequence[tuple[set[str], str]], default: str) -> str:
    pool = {singular_word(w) for w in words} | {singular_word(w) for w in name_words(table)}
    for keys, ctx in contexts:
        if pool & keys:
            return ctx
    return default


# ----------------------------------------------------------------------------------------------
# The meaning of a column.


def column_meaning(
    table: str,
    column: str,
    column_spec: dict[str, Any],
    arguments: Sequence[Any] = (),
    *,
    primary_key: bool = False,
) -> str:
    """What a column holds, as a meaning string: `"person"`, `"email"`, `"date:-730:0"`, `"lex:unit"`, ...

    Read from, in order: a primary key, `references` or `enum` (`"id"`, `"enum"`); the column's
    `generator` hint; the `format` of the arguments bound to it (date, email, uri, ...); its name
    (exact names such as `first_name` or `dob`, then its words from the last, with its table for
    context: `players.name` -> `"person"`, `products.name` -> `"named:product"`); its description and
    the descriptions of the arguments bound to it ("the name of the team" -> `"named:team"`).
    `"unknown"` when nothing is recognised.

    Args:
        table (`str`): The table.
        column (`str`): The column.
        column_spec (`dict`): The column's spec (`type`, `enum`, `references`, `generator`, `description`).
        arguments (`Sequence[dict]`, *optional*): JSON Schemas of the tool arguments bound to the column
            (`bound_schemas(spec)[table, column]`).
        primary_key (`bool`, *optional*, defaults to `False`): The column is its table's primary key.
    """
    if primary_key or column_spec.get("references"):
        return "id"
    if "enum" in column_spec:
        return "enum"
    formats = tuple(
        sorted({a["format"] for a in arguments if isinstance(a, dict) and isinstance(a.get("format"), str)})
    )
    return meaning_from_texts(
        table,
        column,
        column_spec["type"],
        column_spec.get("generator"),
        column_texts(column_spec, arguments),
        formats,
    )


_KEPT = re.compile(r"memor", re.IGNORECASE)
"""Tables of what an assistant keeps about its user, key by key (MemGPT's `memories`)."""


@functools.lru_cache(maxsize=65536)
def meaning_from_texts(
    table: str, column: str, ctype: str, generator: str | None, texts: str, formats: tuple
) -> str:
    if generator is not None:
        return _hint_meaning(generator, table, column, texts)
    if ctype == "boolean":
        return "boolean"
    if ctype == "json":
        return "json"
    if ctype in ("integer", "number"):
        return _number_meaning(table, column, texts)
    meaning = _in_its_table(string_meaning(table, column, texts, formats), table, column, texts)
    if meaning == "unknown" and column.lower() == "value" and _KEPT.search(table):
        return "lex:memory_value"  # what a memory keeps ("oat flat white"), never a stray word ("Democrat")
    if meaning != "unknown":
        return meaning
    if name_words(column)[-1:] in (["type"], ["kind"], ["subtype"]):
        return "lex:type"  # a playlist's or a tax's type no lexicon names: "standard", never "every"
    return _counted_string(table, column, texts)


_MONEY_HOLDERS = frozenset(
    "transaction payment refund invoice order deal opportunity statement bill charge sale installment credit "
    "debit loan expense purchase quote estimate payout transfer deposit withdrawal fee account budget".split()
)
"""Rows whose bare `value` is an amount of money (a transaction's, a refund's), where a setting's is anything."""


def _counted_string(table: str, column: str, texts: str) -> str:
    """A number kept in a string column whose name says it counts or measures (blind readers: a transaction's value
    "every", a score's likes "1.5.11", installments "politics"): the number meaning of its last word, `unknown`
    where that word counts nothing (`num:int`) or is a bare `value` outside money (a setting's value)."""
    words = name_words(column)
    if not words or column.lower() in (table.lower(), singular_word(table.lower())):
        return "unknown"  # a row's own noun (`scores.score` of a music app) is no count
    number = _number_meaning(table, words[-1], texts)
    if number in ("num:int", "num:code", "id") or not number.startswith("num:"):
        return "unknown"
    if (
        singular_word(words[-1]) == "value"
        and not {singular_word(w) for w in name_words(table)} & _MONEY_HOLDERS
    ):
        return "unknown"
    return number


FILE_EXTENSION = re.compile(
    r"\bfiles? with (?:an |the )?extension (?:of )?\.([a-z0-9]{1,5})\b", re.IGNORECASE
)
"""A description that says what file a field takes ("Only files with an extension of .map")."""
_AI_CONTEXT = re.compile(
    r"\b(?:ai|llms?|gpt|language models?|inference|completions?|prompts?|embeddings?|machine learning|ml|neural|"
    r"tokens?|tokenizers?|chats?|fine-?tun\w*|training|trained|hugging ?face|openai|anthropic|predictions?|"
    r"generat\w+|agents?|assistants?|deployments?|endpoints?|pretrained|checkpoints?)\b",
    re.IGNORECASE,
)
"""Words of a table or its texts that make its `model` a machine-learning model's name."""
_POSITION_HOLDERS = frozenset(
    "player employee job staff member person people candidate applicant team role contact user worker athlete "
    "roster lineup squad hire vacancy opening position".split()
)
"""Rows whose `position` is a role (a player's, an employee's); elsewhere it is a place in an order."""
_PHONE_HOLDERS = frozenset(
    "customer contact user employee person people member lead agent staff phone caller account client".split()
)
"""Rows whose `extension` is a phone's: people and their phones."""
_TICKET_WORDS = frozenset("ticket issue incident case bug complaint request task problem".split())
_GOODS = frozenset("product item article sku variant stock inventory good line offer listing".split())
_MEDIA = frozenset("image photo video media blob asset backup disk volume".split())
"""Stored things besides `_FILE_WORDS` ones that have a size in bytes."""
_APPAREL = frozenset(
    "shirt shoe clothing garment apparel dress jacket bed mattress pizza coffee drink cup".split()
)


def _in_its_table(meaning: str, table: str, column: str, texts: str) -> str:
    """A meaning read from a column's name, as its table reads it (blind readers: a ticket resolved "1920x1080", an
    order's sequence "TTAGGGTTAGGG", a job's branch "feature/login-page", an order's source "github"): a ticket's
    resolution is what was done, a sequence is a DNA one only in biology, a branch a git one only near code, an
    order comes from a shop's channel."""
    words = {singular_word(w) for w in name_words(table)}
    context = f"{texts} {table}"
    cwords = [w.lower() for w in name_words(column)]
    if meaning == "lex:car_make" and cwords[-1:] != ["make"]:
        return "lex:flag"  # a recipe review's `make_again` says whether, never "Jeep" (seed 93's readers)
    if (
        meaning in ("named:event", "lex:category")
        and words & _HOOKS
        and cwords[-1:] in (["event"], ["type"], ["events"])
    ):
        # a hook fires on "feedback.created", never "Simmons Charity Gala" (seed 93)
        return "lex:webhook_event"
    if meaning in ("lex:category", "lex:level") and (
        words & _LOGGED or re.search(r"\blog(?:ged|s)?\b", texts, re.I)
    ):
        # an error log's message is of "Database" or "HTTP", "Warning" or "Error", never "Movies" or "expert"
        return "lex:log_category" if meaning == "lex:category" else "lex:log_severity"
    if meaning == "lex:level" and cwords[-1:] == ["severity"]:
        return "lex:severity"
    if meaning in ("lex:tag", "lex:type") and cwords[-1:] in (["label"], ["type"]) and words & _CONTACTS:
        # a phone labelled "mobile" or "work", never "premium" (seed 93's readers); an address "billing"
        return "lex:address_label" if "address" in words else "lex:contact_label"
    if meaning == "code:generic" and name_words(column)[-1:] in (["code"], ["iso"], ["alpha2"]):
        # a country's code is its ISO code, a currency's or a language's theirs (seed 93: a country "UK-1315")
        for entity, code in (
            ("country", "country_code"),
            ("currency", "currency"),
            ("language", "lex:language_code"),
        ):
            if entity in words:
                return code
    if (
        meaning == "lex:ml_model"
        and "model" not in words
        and not _AI_CONTEXT.search(f"{texts} {table} {column}")
    ):
        # a vehicle's or a charge station's model is a product's, never "Qwen/Qwen2.5-7B-Instruct" (a blind reader)
        if re.search(r"\b(?:car|cars|vehicle|vehicles|automobile|fleet)\b", f"{texts} {' '.join(words)}"):
            return "lex:car_model"
        return "lex:device_model"
    if (
        meaning == "lex:size"
        and not words & (_GOODS | _APPAREL)
        and (len(name_words(column)) > 1 or words & (_FILE_WORDS | _MEDIA))
    ):
        # an order's average size or an attachment's size is counted, never "king" (a blind reader)
        return "num:capacity"
    if meaning == "lex:position" and not words & _POSITION_HOLDERS:
        return "code:ordinal"  # a task's place in its list, never "midfielder" (a blind reader)
    if meaning == "lex:file_extension" and (
        "phone" in name_words(column) or words & _PHONE_HOLDERS or re.search(r"\bphone|\bdial", texts, re.I)
    ):
        return (
            "code:extension"  # a customer's extension is dialled ("mp3", a blind reader), a file's is a type
        )
    if meaning in ("text:prose", "lex:source", "unknown") and FILE_EXTENSION.search(texts):
        return (
            "filename"  # elmah's "The minified JavaScript file. Only files with an extension of .js": a file
        )
    if meaning == "lex:resolution" and words & _TICKET_WORDS:
        return "lex:ticket_resolution"
    if meaning == "lex:species" and words & _ANIMALS:
        return "lex:pet_species"  # a pet is a dog or a cat, never a whale
    if meaning == "lex:source" and words & {
        "order",
        "sale",
        "purchase",
        "booking",
        "reservation",
        "lead",
        "deal",
    }:
        return "lex:order_source"  # where an order came from: the web, a phone call, never "github"
    if meaning == "lex:unit" and words & _GOODS:
        return (
            "lex:product_unit"  # a product is sold by the piece, box or kilogram, never in "usd" or "radians"
        )
    if meaning == "lex:dna" and not re.search(r"gene|dna|rna|genom|protein|nucleo|bio|primer", context):
        return "code:number"
    if (
        meaning == "lex:branch"
        and column.lower() == "branch"
        and not re.search(r"\bgit|repo|commit|merge|pull|code|build|deploy|pipeline", context)
    ):
        return "named:store"
    return meaning


def _hint_meaning(hint: str, table: str, column: str, texts: str) -> str:
    by_hint = {
        "name": "person", "date": f"date:{_date_window(column)}", "datetime": f"datetime:{_date_window(column)}",
        "money": "num:money", "quantity": "num:quantity", "rating": "num:rating", "integer": "num:int",
        "number": "num:float", "status": f"status:{_context(name_words(column), table, _STATUS_CONTEXTS, 'generic')}",
        "title": f"title:{_context(name_words(column), table, _TITLE_CONTEXTS, 'generic')}", "text": "text:prose",
    }  # fmt: skip
    return by_hint.get(hint, hint)


_PLAYER_WORDS = frozenset({"player", "players", "character", "characters", "hero", "heroes", "rpg"})


_FLAG_FIRST = frozenset("is has needs can should allow allows enable".split())
"""First words of a yes/no field (`is_public`, `needs_sanitize`); kept as text, it holds "true" or "false"."""


_NUMBER_LAST = frozenset(
    "rate percent percentage pct amount price cost fee balance subtotal qty adults children days".split()
)
"""Last words of a column that holds a number even when typed as a string (`daily_interest_rate`, `postponement_days`,
`adults`): never a word ("painting", "woman")."""


_DONE_WORDS = frozenset(
    "sent verified opened confirmed delivered received viewed clicked signed updated changed modified reset".split()
)
"""Last words of a field that says something happened to what its other words name (`welcome_email_sent`)."""


def string_meaning(table: str, column: str, texts: str, formats: tuple) -> str:
    """What a string column holds, read from its formats, its name and its texts (see `column_meaning`); a name
    run together (`creditlimit`) is read in its words where it is read as nothing otherwise, or where its words
    name a number (a credit limit, never the person its description speaks of: "If the user don't set a credit
    limit ...")."""
    meaning = _string_meaning(table, column, texts, formats)
    parts = glued_words(column) if len(name_words(column)) == 1 else ()
    if len(parts) > 1:
        split = _string_meaning(table, "_".join(parts), texts, formats)
        if split != "unknown" and (meaning == "unknown" or split.startswith("num:")):
            return split  # a number its words name wins over what the description speaks of
    return meaning


_MUSIC = frozenset("track album song release record single artist music playlist recording".split())
"""Things a record label puts out: their `label` is one, never a tag."""


_TALK_WORDS = frozenset(
    "event call leg conversation chat sms text knock notification invite invitation".split()
)
"""Things said between people: their `from` and `to` are people, never places."""


_PLACE_QUALIFIERS = frozenset("address billing shipping mailing postal home residence birth".split())
"""Words before `state` that make it a place (`billing_address_state`), never a status."""


def _string_meaning(table: str, column: str, texts: str, formats: tuple) -> str:
    n = column.lower()
    words = name_words(column)
    last = words[-1] if words else n
    by_format = {
        "date": f"date:{_date_window(column)}", "date-time": f"datetime:{_date_window(column)}",
        "email": "email", "idn-email": "email", "uri": "url", "url": "url", "iri": "url", "uuid": "uuid",
        "ipv4": "ip", "ipv6": "ip", "hostname": "domain", "time": "time",
    }  # fmt: skip
    for fmt in formats:
        if fmt in by_format:
            return by_format[fmt]
    if words[-2:] == ["marital", "status"] or n == "maritalstatus":
        return "lex:marital"  # single or married, never an account's "inactive" (seed 92's readers)
    if (last in ("label", "labels") or words[-2:] == ["label", "name"]) and {
        singular_word(w) for w in name_words(table)
    } & _MUSIC:
        return "named:record_label"  # an album's label is a record label, never a tag ("enhancement")
    if (
        n == "id"
        or last in ("id", "ids", "uid", "uids")
        or n.endswith("_id")
        or (n.endswith("id") and n[:-2] in ENTITY_MEANINGS)
        or _is_parent(words)
    ):
        return "uuid" if re.search(r"\buuid\b", texts) else "id"
    if (
        n.endswith("id")
        and len(n) > 4
        and n not in _NOT_IDS
        and singular_word(n[:-2]) in _PERSON_WORDS | _PRODUCT_WORDS
    ):
        return "id"
    if len(words) > 1 and last.lower() in _DONE_WORDS:
        # `welcome_email_sent`, `email_verified`, `last_email_opened`: when it happened, never an email address
        return "datetime:-730:0"
    if n in ("to", "from") and re.search(r"\bphone number\b|\bmobile number\b|\bmsisdn\b|\be\.164\b", texts):
        return "phone"  # an SMS's `to`: "The phone number that received the message", never a city
    if n in ("to", "from") and (set(words) | set(name_words(table))) & (
        _MAIL_TABLE_WORDS | {"emails", "mails", "messages"}
    ):
        return "email" if re.search(r"\be-?mail\b", texts) or "mail" in table.lower() else "person"
    if (
        n in ("to", "from")
        and {singular_word(w) for w in name_words(table)} & _TALK_WORDS
        and not re.search(r"\b(?:date|time|day|when)\b", texts)
    ):
        return (
            "person"  # who a call or a conversation's event is from, never a city (seed 91's readers: Vonage)
        )
    if re.sub(r"[^a-z]", "", n) == "displayname" and not names_a_person(table):
        return _name_meaning(table, [], texts)  # a group's or a location's display name names the group
    exact = EXACT_MEANINGS.get(n) or EXACT_MEANINGS.get(re.sub(r"[-\s.]+", "_", n))  # `Content-Type`
    if exact is not None:
        return exact
    if last == "text" and {"keyword", "keywords"} & (set(words) | set(name_words(table))):
        # eBay's `negative_keyword_text`, a keyword's `text`: a few search words, never a sentence (seed 88's
        # readers: the negative keyword "Set up by Robert Howell of the IT team in April.")
        return "query"
    kind_of = _kind_of(words)
    if kind_of is not None:
        return kind_of
    if re.sub(r"[^a-z]", "", n) == "odatatype":  # Microsoft Graph's `@odata.type`: `#microsoft.graph.event`
        return "odata_type"
    compound = _compound_meaning(table, words)
    if compound is not None:
        return compound
    if (
        words[:2] == ["number", "of"]
        or last in ("revenue", "revenues", "turnover", "salary", "income")  # "annual_revenue": "1250000"
        or (len(words) > 1 and last == "count")
        or words[:1] == ["num"]
        or last in ("latitude", "longitude", "lat", "lng", "lon")
        or last in _NUMBER_LAST
        or (last == "limit" and {"credit", "spending", "overdraft"} & set(words))
    ):
        return _number_meaning(table, column, texts)  # a number kept as a string: "12", "40.7128"
    if words in (["object"], ["resource"]):  # the type of a record, as APIs name it: "user"
        return "entity"
    if words in (["type"], ["kind"], ["type", "of"]):
        return "lex:type"
    if (
        "class" in words
        and (set(name_words(table)) | set(re.findall(r"[a-z]+", texts.lower()))) & _PLAYER_WORDS
    ):
        return "lex:character_class"  # a player's class is a warrior or a mage, never `HttpClient`
    if len(words) == 2 and words[0] in ("last", "first") and words[1] in _EVENT_WORDS:
        return f"datetime:{_date_window(column)}"  # `last_update`, `first_activation`
    if words[-2:] == ["time", "zone"]:
        return "timezone"  # Google Calendar's `start.timeZone` was a cloud zone "fra1" (seed 94's readers)
    if len(words) >= 2 and words[-2] == "last" and words[-1].endswith("ed") and len(words[-1]) > 4:
        # Docker Hub's `last_pulled`, `tag_last_pulled`, `last_synced`: when it last happened (seed 94's readers: an
        # image's `last_pulled` "12:00", a tag's "performance")
        return f"datetime:{_date_window('last')}"
    if len(words) in (2, 3) and last == "by" and words[-2].endswith("ed"):
        return "person"  # `booked_by`, `approved_by`, `last_edited_by`
    if len(words) >= 2 and words[0] in _FLAG_FIRST and last not in ("for", "of", "to", "by", "id", "ids"):
        return "lex:flag"  # `is_public`, `needs_sanitize` kept as text: "true" or "false", never "major"
    if n in ("check_in", "check_out", "checkin", "checkout", "check_in_date", "check_out_date"):
        return "date:1:120"
    if words[-2:] == ["end", "point"]:
        return "url"  # `wms_end_point`: an endpoint, never a moment
    if last in _MOMENT_LAST or (len(words) > 2 and words[-2] == "at" and last in ("utc", "gmt", "local")):
        # a log's `start` and `end`, a build's `started` and `finished`, `timer_started_at_utc`: moments, where
        # random words stood ("these", "prevent"; blind readers of seed 84)
        return f"datetime:{_date_window(column)}"
    if (
        n.endswith("_at")
        or "timestamp" in n
        or "datetime" in n
        or n in ("created", "updated", "modified", "deleted", "changed", "last_changed")
        # a bare moment of an end kept as text (Google Tasks' `completed`): when it happened, never a word
        or n in ("completed", "cancelled", "canceled", "closed", "resolved", "finished", "ended", "archived")
    ):
        return f"datetime:{_date_window(column)}"
    if n.startswith(("created", "updated", "modified", "deleted", "last_modified")) or (
        len(words) > 1 and last == "time" and words[0] in ("create", "update", "modify", "delete", "trash")
    ):  # `create_time` is a timestamp, not a time of day
        return f"datetime:{_date_window(column)}"
    if n.endswith("name") and not n.endswith(("_name", "username", "surname")) and n != "name":
        entity = n[: -len("name")].rstrip("_")
        if entity:
            words = [*name_words(entity), "name"]
            last = "name"
    if last == "name" and len(words) > 2 and words[-2] in _NAME_PARTS:
        return _NAME_PARTS[words[-2]]  # `learner_first_name`, `user_last_name`: a part of a person's name
    if last == "name":
        return _name_meaning(table, words[:-1], texts)
    if (
        any(
            w.endswith("date") and w not in ("update", "candidate", "validate", "mandate", "accommodate")
            for w in words
        )
        or n.endswith("_on")
        or last in ("deadline", "due", "expiry", "expiration", "expires")
    ):
        return _dated("date", column, texts)
    if (
        last in ("time", "hour")
        or n.endswith("time")
        and len(words) > 1
        and last not in ("lifetime", "runtime")
    ):
        return _dated("time", column, texts)
    if (
        last in _PERSON_WORDS
        and last not in ("user", "contact", "customer")
        or (len(words) == 1 and n in _PERSON_WORDS)
    ):
        if last == "artist" and not re.search(r"\bperson\b", texts):
            return "named:artist"
        return "person"
    if last == "state" or n == "state":
        geo = re.search(r"\b(?:u\.?s\.?|us|american) state\b|\bstate (?:name|abbreviation|code)\b|\bcity\b|"
                        r"\bcountry\b|\baddress\b|\bprovince\b", texts)  # fmt: skip
        place = bool(_PLACE_QUALIFIERS & set(words))
        return (
            "state"  # `billing_address_state`: where, never "pending" (seed 88's readers)
            if geo or place or name_words(table)[-1:] in (["addresses"], ["locations"], ["cities"])
            else (f"status:{_context(words, table, _STATUS_CONTEXTS, 'generic')}")
        )
    if n.endswith("status") or last in ("status", "stage") or n.endswith("state") and len(n) > 5:
        return f"status:{_context(words, table, _STATUS_CONTEXTS, 'generic')}"
    if last in ("title", "subject", "headline", "summary", "topic", "heading"):
        if (
            last == "title"
            and _context(words, table, _TITLE_CONTEXTS, "") == ""
            and re.search(r"\b(?:position|job|official title|honorific)\b", texts)
        ):
            return "title:job"
        return f"title:{_context(words, table, _TITLE_CONTEXTS, 'generic')}"
    for word in reversed(words):
        meaning = TOKEN_MEANINGS.get(word)
        if meaning is None or (word in _HEAD_ONLY and word != last):
            continue  # `cell_type` is not a phone, `cell` is
        if meaning == "text":
            kind = "note" if word in ("note", "notes", "comment", "comments", "remarks", "memo", "instructions",
                                      "requests", "instruction") else "review" if word in ("review", "reviews",
                                      "feedback") else "prose"  # fmt: skip
            return f"text:{kind}"
        if meaning in ("date", "time"):
            return _dated(meaning, column, texts)
        if meaning == "lex:ml_model" and re.search(r"\b(?:car|vehicle|automobile)\b", texts + " " + table):
            return "lex:car_model"
        if meaning == "lex:identifier" and re.search(
            r"\b(?:optimi[sz]e|equation|mathematical|integrate|derivative)", texts
        ):
            return "lex:math"
        if meaning == "secret:key" and re.search(
            r"\b(?:music|chord|song|melody|scale|harmony|progression)", f"{texts} {table}"
        ):
            return "lex:music_key"  # the key of a chord progression, not a secret
        if meaning == "secret:key" and _KEPT.search(table):
            return "lex:memory_key"  # a memory's key ("favorite_color"), never an MD5 digest a task dictates
        if meaning == "lex:unit" and word == "system":
            return meaning if re.search(r"\b(?:metric|imperial|unit)", texts) else "unknown"
        return meaning
    for pattern, meaning in _DESC_RULES:
        if pattern.search(texts):
            return _dated(meaning, column, texts) if meaning in ("date", "time") else meaning
    return "unknown"


# What happened at the time of a `last_<event>` / `first_<event>` column.
_EVENT_WORDS = frozenset(
    "update activation mail login visit seen contact activity sync run access used message purchase order".split()
)

# Words that mean what `TOKEN_MEANINGS` says only as the last word of a name (`cell` is a phone,
# `cell_type` is not).
_HEAD_ONLY = frozenset(("cell", "mobile", "environment", "protocol", "sound"))

# Generic heads of compound names and what the word before them makes of them: the most specific
# meaning of a compound name wins (`email_address` is an email, not a postal address; `phone_number`
# a phone, not a code; `zip_code` a zip code). `{head: {modifier: meaning}}`.
_HEAD_WORDS = {"address": "address", "addresses": "address", "addr": "address", "adress": "address",
               "number": "number", "numbers": "number", "num": "number", "no": "number", "nr": "number",
               "code": "code", "codes": "code"}  # fmt: skip
_COMPOUNDS = {
    "address": mapping(
        """
email: email mail e bcc cc reply
ip: ip ipv ipv4 ipv6
domain: server host
code:mac: mac hardware ethernet wifi bluetooth physical
url: web website url site internet homepage
code:wallet: wallet
"""
    ),
    "number": mapping(
        """
phone: phone mobile cell tel telephone contact fax whatsapp landline sms callback home office work
"""
    ),
    "code": mapping(
        """
zip: zip postal post
country_code: country
currency: currency
lex:language_code: language lang
airport: airport iata
color: color colour
"""
    ),
}
# `from_address`, `to_addresses`, `sender_address` are emails in a mail table, postal addresses elsewhere.
_MAIL_TABLE_WORDS = frozenset("mail email message envelope newsletter draft inbox outbox thread".split())
_MAIL_MODIFIERS = frozenset("from to sender recipient recipients return".split())
# Words that may follow a compound without changing what it holds: `zip_code_start`, `phone_number_2`.
_COMPOUND_TAILS = frozenset(
    "start end from to min max primary secondary alt alternate other old new value".split()
)


def _compound_meaning(table: str, words: Sequence[str]) -> str | None:
    """The meaning of a generic head given the word before it (`email_address` -> `"email"`,
    `ipAddress` -> `"ip"`, `web_address` -> `"url"`, `phonenumber` -> `"phone"`), or `None`."""
    mail_table = bool({singular_word(w) for w in name_words(table)} & _MAIL_TABLE_WORDS)
    for j in range(len(words) - 1, -1, -1):
        word = words[j]
        pairs = [(words[j - 1], word)] if j else []
        for head in ("address", "number", "code"):  # joined words: `emailaddress`, `zipcode`
            if word.endswith(head) and len(word) > len(head):
                pairs.append((word[: -len(head)], head))
        for modifier, head in pairs:
            kind = _HEAD_WORDS.get(head)
            if kind is None:
                continue
            meaning = _COMPOUNDS[kind].get(modifier)
            if meaning is None and kind == "address" and modifier in _MAIL_MODIFIERS and mail_table:
                meaning = "email"
            if meaning is not None:
                return meaning
        if word not in _COMPOUND_TAILS:
            return None  # only the last compound of a name, and the words after it that keep its meaning
    return None


def _is_parent(words: Sequence[str]) -> bool:
    """`parent`, `parent_id`, `parentKey`, `org_unit_parent`: a key of the row's parent (a tree)."""
    return bool(words) and (
        words[-1] == "parent"
        or (len(words) == 2 and words[0] == "parent" and words[1] in ("id", "key", "uid", "ref"))
    )


def _dated(kind: str, column: str, texts: str) -> str:
    """A date/time meaning: `time`, or `date:<low>:<high>` / `datetime:<low>:<high>` (days from now)."""
    fmt = described_format(texts)
    if kind == "time" and fmt and "%d" in fmt and "%H" in fmt:
        kind = "datetime"
    if kind == "date" and fmt and "%H" in fmt and "%d" in fmt:
        kind = "datetime"
    if kind == "time" and _a_moment(column):
        kind = "datetime"
    if kind == "time":
        return "time"
    return f"{kind}:{_date_window(column)}"


_MOMENT_WORDS = frozenset("last ack acknowledge resolve alert trigger close open expire expiry edit".split())


def _a_moment(column: str) -> bool:
    """Whether a `..._time` column is when something happened, never a time of day: Notion's `last_edited_time`,
    VictorOps' `ack_time` and `last_alert_time` (seed 92's readers: "times are bare 11:45")."""
    words = name_words(column)
    if len(words) < 2 or words[-1] != "time":
        return False
    return bool(set(words[:-1]) & _MOMENT_WORDS) or any(w.endswith("ed") for w in words[:-1])


#: Words that say which of a row's own names a `<word>_name` column holds (`legal_name`, `friendly_name`).
NAME_MODIFIERS = frozenset(
    "friendly alternate alt external formatted fully qualified short long common official legal internal "
    "public canonical original preferred registered trading".split()
)
#: The part of a person's name that `<entity>_<part>_name` holds.
_NAME_PARTS = {
    "first": "first_name",
    "given": "first_name",
    "last": "last_name",
    "family": "last_name",
    "middle": "middle_name",
}


def _kind_of(words: Sequence[str]) -> str | None:
    """The meaning of `<thing>_type` (`address_type`, `phone_type`, `budget_type_code`): a kind of the thing
    ("billing", "mobile"), never the thing itself (a street in `addressType`, a phone number in `phone_type`, a
    playing card in `card_type`), of the things the lexicons know the kinds of; `None` for another name."""
    if len(words) > 2 and words[-1] == "code" and words[-2] == "type":
        words = words[:-1]  # `project_budget_type_code`
    if len(words) < 2 or words[-1] not in ("type", "kind"):
        return None
    if words[-2] in ("mime", "content", "media", "object", "resource", "entity", "os", "event", "room"):
        return None  # names the exact meanings and the lexicons read as they are
    thing = singular_word(words[-2])
    return f"lex:{thing}_type" if f"{thing}_type" in LEXICONS else None


_ACCOUNT_WORDS = frozenset("account profile identity mailbox login".split())


def names_a_person(table: str) -> bool:
    """Whether a row of `table` is shown by a person's name (`users`, `members`, an account or a profile, a
    table of `extusers`), so that its `display_name` is a person's, not a group's or a location's."""
    words = [singular_word(w) for w in name_words(table)]
    last = words[-1] if words else ""
    return (
        not words
        or last in _PERSON_WORDS | _ACCOUNT_WORDS
        or last.endswith(("user", "member", "contact"))
        or _name_meaning(table, [], "") == "person"
    )


_CODE_TEXT = re.compile(
    r"\b(?:java|python|kotlin|swift|typescript|javascript|c\+\+|c#|source|code|method|methods|package|"
    r"compile|compiler|inherit\w*|subclass|object-oriented|oop|module|namespace|struct|interface|bytecode)\b"
)
"""Text that says a class is a class of a program (`TreeNode`), not one people take."""


def _name_meaning(table: str, entity_words: list[str], texts: str) -> str:
    """The meaning of `<entity>_name`, or of `name` given its table."""
    table_words = [singular_word(w) for w in name_words(table)]
    entity_words = [w for w in entity_words if w not in NAME_MODIFIERS]  # `legal_name`: the row's own name
    if entity_words:
        entity = singular_word(entity_words[-1])
        own = bool(table_words) and entity == table_words[-1]
    else:
        entity, own = (table_words[-1] if table_words else ""), True
    if entity in _PERSON_WORDS or (own and set(table_words) & _PERSON_WORDS):
        return "person"
    if entity in _COMPANY_WORDS or (own and set(table_words) & _COMPANY_WORDS):
        return "company"
    if entity in _PRODUCT_WORDS or (own and set(table_words) & _PRODUCT_WORDS):
        return "named:product"
    if entity == "branch" and re.search(r"\bgit|\brepo|\bcommit|\bmerge", f"{texts} {table}"):
        return "lex:branch"
    if entity == "class" and not _CODE_TEXT.search(f"{texts} {table}"):
        return "named:class"  # a class people take ("Biology 101, Period 3"), not a class of a program
    if entity in ENTITY_MEANINGS:
        return ENTITY_MEANINGS[entity]
    for pattern, meaning in _DESC_RULES:  # "the name of the team/player/company/..."
        if (meaning.startswith("named:") or meaning in ("person", "company")) and pattern.search(texts):
            return meaning
    return "named:label"


# ----------------------------------------------------------------------------------------------
# Lists: the items a plural name holds.

_LIST_SUFFIXES = frozenset(("list", "array", "set", "collection"))
# Plural-looking last words that name one thing (or one object), not a list of items.
_MASS_WORDS = frozenset(
    "details settings preferences prefs attributes specs stats status address news series species analytics "
    "metrics headers credentials data media criteria options params parameters properties".split()
)
# A `custom_fields` / `extra_options` column holds one object of fields, not a list of field names.
_DETAIL_MODIFIERS = frozenset("custom extra additional extended meta metadata".split())
_FILE_WORDS = frozenset(("document", "attachment", "file", "upload"))


@functools.lru_cache(maxsize=65536)
def item_meaning(table: str, column: str) -> tuple[str, str] | None:
    """The items of a list column: `(item name, meaning)` for a plural name or a `<thing>_list`
    (`product_list` -> `("product", "named:product")`, `phone_numbers` -> `("phone_number", "phone")`,
    `ingredients` -> `("ingredient", "lex:ingredient")`), `None` for a name that is not a list of
    items of a known meaning."""
    words = name_words(column)
    if not words or set(words) & _DETAIL_MODIFIERS:
        return None
    last = words[-1]
    if last in _LIST_SUFFIXES and len(words) > 1:
        words = words[:-1]
    elif last in ("ids", "uids"):
        words = [*words[:-1], "id"]
    elif last in _MASS_WORDS or singular_word(last) == last:
        return None
    else:
        words = [*words[:-1], singular_word(last)]
    item, head = "_".join(words), words[-1]
    if head in _PERSON_WORDS:
        return item, "person"
    if head in _FILE_WORDS:
        return item, "filename"
    meaning = meaning_from_texts(table, item, "string", None, "", ())
    return None if meaning == "unknown" else (item, meaning)


# ----------------------------------------------------------------------------------------------
# Kinds of numbers.

# Numbers: (words, kind, low, high, decimals of a number column); the first whose words meet the name wins.
_NUMBER_KINDS: tuple[tuple[frozenset[str], str, float, float, int], ...] = tuple(
    (frozenset(words.split()), kind, lo, hi, dec)
    for words, kind, lo, hi, dec in (
        ("latitude lat", "lat", -90, 90, 6),
        ("longitude lon lng long", "lon", -180, 180, 6),
        ("year yr founded established built", "year", 1950, 0, 0),
        ("age", "age", 18, 90, 0),
        ("salary wage wages income compensation", "salary", 30_000, 200_000, 2),
        ("revenue sales turnover gdp", "revenue", 10_000, 5_000_000, 2),
        ("budget investment principal loan mortgage capital", "budget", 1_000, 500_000, 2),
        ("balance", "balance", 0, 20_000, 2),
        ("rent", "rent", 500, 5_000, 2),
        ("fare airfare", "fare", 50, 1_500, 2),
        (
            "price cost fee amount total subtotal payment charge refund tax tip value worth spend spent "
            "paid bid prize deposit fine",
            "money",
            1,
            500,
            2,
        ),
        ("rating stars", "rating", 1, 5, 1),
        ("score points", "score", 0, 100, 1),
        ("percent percentage pct discount humidity", "percent", 0, 100, 1),
        ("probability ratio fraction confidence prob likelihood share", "ratio", 0, 1, 3),
        ("rate interest apr", "rate", 0.5, 15, 2),
        ("population", "population", 1_000, 5_000_000, 0),
        (
            "followers views likes subscribers downloads visits clicks impressions plays listens streams",
            "audience",
            0,
            50_000,
            0,
        ),
        ("employees staff headcount", "headcount", 1, 5_000, 0),
        ("stock inventory", "stock", 0, 200, 0),
        (
            "step steps stage sequence seq",
            "step",
            1,
            8,
            0,
        ),  # an escalation's step 3, never "7.33" (a blind reader)
        # a car's readings (seed 91's readers: a slope of 83.77, 80 unlocked doors, a 61 V battery, tyres at 108)
        ("slope incline gradient tilt", "slope", 0, 15, 1),
        ("door doors", "doors", 2, 5, 0),
        ("voltage volt volts", "voltage", 11.5, 14.5, 2),
        ("battery fuel charge", "percent", 0, 100, 1),
        ("tire tyre tires tyres", "tire", 28, 36, 1),
        ("rpm", "rpm", 700, 4_000, 0),
        # a booking's guests (seed 94's readers: "20 adults", "adults is 10.29")
        ("adults adult guests passengers occupants pax", "party", 1, 4, 0),
        ("children kids infants child", "children", 0, 3, 0),
        (
            "quantity qty count num number copies units seats tickets guests people passengers adults "
            "children kids rooms nights players attendees participants members items beds bedrooms "
            "bathrooms floors pieces orders servings serving portions results result ingredients installments "
            "segments",
            "quantity",
            1,
            12,
            0,
        ),
        (
            "minutes mins minute duration runtime length_minutes time prep cook cooking wait",
            "minutes",
            5,
            240,
            0,
        ),
        ("seconds secs second timeout delay", "seconds", 1, 3_600, 0),
        ("hours hrs hour", "hours", 1, 12, 0),
        ("days day nights stay", "days", 1, 30, 0),
        ("weeks week", "weeks", 1, 12, 0),
        ("months month", "months", 1, 12, 0),
        ("weight weight_kg mass kg", "weight", 45, 120, 1),
        ("height tall", "height", 150, 200, 1),
        ("temperature temp celsius fahrenheit", "temperature", -10, 40, 1),
        ("distance km miles mileage", "distance", 1, 500, 1),
        ("speed velocity mph kmh", "speed", 10, 130, 1),
        ("calories kcal", "calories", 50, 900, 0),
        ("steps", "steps", 1_000, 20_000, 0),
        ("floor level", "level", 1, 20, 0),
        ("priority", "priority", 1, 5, 0),
        ("page pages", "pages", 1, 500, 0),
        ("limit size capacity", "capacity", 1, 100, 0),
        ("port", "port", 1_024, 65_535, 0),
        ("volume area length width depth radius diameter side base", "measure", 1, 100, 2),
        ("pressure", "pressure", 90, 110, 1),
    )
)


_UNIT_WORDS = frozenset(
    "hours hrs minutes mins seconds secs days weeks months kg km miles calories kcal".split()
)
"""Units that name what a number counts when they end its name, whatever the words before them."""


def _number_meaning(table: str, column: str, texts: str) -> str:
    words = set(name_words(column))
    words |= {singular_word(w) for w in words}
    if "id" in words or column.lower().endswith("_id") or _is_parent(name_words(column)):
        return "id"
    if {"height"} & words and (column.lower().endswith("_m") or "meter" in texts):
        return "num:height_m"
    if "age" in words and {singular_word(w) for w in name_words(table)} & _ANIMALS:
        return "num:pet_age"  # a pet of 68 (an age read as a person's)
    if {"weekday", "dow"} & words or {"week", "day"} <= words:  # `week_start_day`: a day of the week
        return "num:weekday"
    if {"month", "day"} <= words:  # `billing_day_of_month`: a day of the month
        return "num:monthday"
    if name_words(column)[-1:] in (["status"], ["state"]):
        return "num:code"  # ExaVault's share `status` 0 or 1 ("set ... inactive by setting the status to 0"), never 98
    if words & {"temperature", "temp"} and {singular_word(w) for w in name_words(table)} & _CLIMATES:
        return "num:setpoint"  # a cabin or a room set to 21.5 degrees, never 2.7 (seed 92's readers)
    if "limit" in words and words & {"credit", "spending", "spend", "overdraft", "withdrawal", "transfer"}:
        return "num:budget"  # a credit limit is money ("change its credit limit to 2" read as a count)
    if words & {"percent", "percentage", "pct"} and (
        words & _REBATES or {singular_word(w) for w in name_words(table)} & _REBATES
    ):
        return "num:discount"  # a discount of 5-50%, never 66.5% (seed 93's readers: "Loyalty 5%" at 66.5)
    share = words & {"percent", "percentage", "pct", "vat", "gst"}  # a `tax_rate` stays a rate (0.5-15)
    if share and (words & _LEVIES or {singular_word(w) for w in name_words(table)} & _LEVIES):
        return "num:levy"  # a VAT of 79.6% or a restocking fee of 91.8% (seed 93's readers): a tax or a fee's share
    last = set(name_words(column)[-1:]) & ({"rate", "percent", "percentage", "pct", "ratio"} | _UNIT_WORDS)
    # a `tax_rate` is a rate, a `tax_percentage` a percentage: not money; `budget_hours` are hours, not a budget
    for keys, kind, *_ in _NUMBER_KINDS:
        if last & keys:
            return f"num:{kind}"
    for keys, kind, *_ in _NUMBER_KINDS:
        if words & keys:
            return f"num:{kind}"
    return "num:int"


_REBATES = frozenset("discount coupon promotion promo voucher rebate off sale".split())
_CONTACTS = frozenset("phone email address method contact number fax".split())
_HOOKS = frozenset("hook webhook callback subscription notification trigger".split())
_LOGGED = frozenset("log error exception incident alert heartbeat".split())
_LEVIES = frozenset("tax vat gst fee restocking commission surcharge levy duty tip".split())
"""What a share of a price is charged as: 0-25%, never most of the price."""
_CLIMATES = frozenset("climate thermostat hvac cabin heating cooling ac room zone vehicle car".split())
"""Things set to a temperature people live at."""

NUMBER_RANGES = {kind: (lo, hi, dec) for _, kind, lo, hi, dec in _NUMBER_KINDS} | {
    "setpoint": (16, 28, 1), "levy": (0, 25, 1), "discount": (5, 50, 0),
    "int": (1, 100, 2), "float": (1, 1_000, 2), "height_m": (1.5, 2.0, 2), "quantity": (1, 20, 0),
    "weekday": (0, 6, 0), "monthday": (1, 28, 0), "pet_age": (1, 15, 0), "code": (0, 1, 0),
}  # fmt: skip
_ANIMALS = frozenset("pet animal dog cat horse puppy kitten livestock".split())


def value_range(table: str, column: str, column_spec: dict) -> tuple[float, float] | None:
    """The range a numeric column's values keep by what they are (`vehicles.fuel_level`: 0-100), or `None` when its
    meaning bounds nothing by itself (a price, a stock, a year)."""
    meaning = column_meaning(table, column, column_spec)
    kind = meaning.split(":", 1)[-1] if meaning.startswith("num:") else ""
    if kind not in _BOUNDED:
        return None
    lo, hi, _ = NUMBER_RANGES[kind]
    return lo, hi


_BOUNDED = frozenset(
    "percent levy discount ratio rating score setpoint priority step level lat lon age weekday monthday doors".split()
)
"""Kinds of numbers whose range is what they are (a percentage, a rating), not only what is usual (a price)."""


# ----------------------------------------------------------------------------------------------
# What the spec says about a column's values: quoted values, "e.g." lists, defaults, examples, formats.

_QUOTED = re.compile(r"(?<![\w'\"`])(['\"`])([^'\"`\n]{1,80}?)\1(?!\w)")
_LISTED = re.compile(
    r"(?:\be\.?\s?g\b\.?|\beg:|\bi\.?e\b\.?|\bsuch as\b|\bfor example\b|\bfor instance\b|\bexamples?:|"
    r"\boptions are\b|\boptions:|\bcan be\b|\bcould be\b|\beither\b|\bone of\b|\b(?:allowed|possible|"
    r"accepted|valid) values(?: are)?|\bdefaults? (?:is|to)\b|\bdefault:|\bdefault value is\b)[\s:,]*"
    r"([^.;()\[\]\n]{1,100})",
    re.IGNORECASE,
)
_HOW_WRITTEN = re.compile(
    r"\s*(?:[a-z]+ed|[a-z]+en|set|put|sent|left|used)\s+(?:with|by|to|as|in|into|for|from|on|using|via|at|"
    r"if|when|only|through|between)\b",
    re.IGNORECASE,
)
"""What follows "can be" when it says how a value is written or used, not what it is ("can be separated with
commas", "can be used to filter", "could be set to"): VictorOps' incidents got the service "separated with
commas"."""
_TEMPLATE = re.compile(
    r"(?<![A-Za-z])((?:yyyy|yy|mm|dd|hh|ss)(?:[-/.: t](?:yyyy|yy|mm|dd|hh|ss|am|pm))+)(?![A-Za-z])",
    re.IGNORECASE,
)
_STOP_VALUES = frozenset(
    "the a an if not none null all any dontcare default true false optional n/a na empty unknown "
    "specified provided etc or and current other yes no".split()
)
_NOT_VALUE_WORDS = frozenset(
    "if not specified provided unspecified default defaults optional otherwise unless when whether".split()
)
_PLACEHOLDER_WORDS = frozenset(
    "city state country name song artist region value string text number street zip code first last "
    "abbr abbreviation track album id key songname artistname x xx xxx example format date time your my "
    "the of or and in s width height widthxheight any all name names".split()
)


@functools.lru_cache(maxsize=65536)
def described_format(texts: str) -> str | None:
    """The `strftime` format of a date/time template in a description ("formatted as 'MM/DD/YYYY'")."""
    for match in _TEMPLATE.finditer(texts):
        template = re.sub(
            r"\b(?:AM/PM|A\.M\./P\.M\.)", "AM", match.group(1), flags=re.IGNORECASE
        )  # one marker
        parts = re.split(r"([-/.: t])", template, flags=re.IGNORECASE)
        out, hour = [], False
        for part in parts:
            token = part.upper()
            if token == "YYYY":
                out.append("%Y")
            elif token == "YY":
                out.append("%y")
            elif token == "MM":
                out.append("%M" if hour else "%m")
            elif token == "DD":
                out.append("%d")
            elif token == "HH":
                out.append("%H")
                hour = True
            elif token == "SS":
                out.append("%S")
            elif token in ("AM", "PM"):
                out.append("%p")
            else:
                out.append("T" if part in ("t", "T") else part)
        fmt = "".join(out)
        if "%p" in fmt:  # "HH:MM AM/PM": a twelve-hour clock ("4:45 PM", never "16:45 PM/PM")
            fmt = fmt.replace("%H", "%I")
        broken = ("%d" in fmt and "%m" not in fmt) or ("%Y" in fmt and "%y" in fmt)  # "YYYY-DD-YY" (OnSched)
        if fmt.count("%Y") < 2 and not broken and ("%d" in fmt or "%H" in fmt or "%I" in fmt or "%m" in fmt):
            return fmt
    return None


_MOMENT_LAST = frozenset("start end started ended finished began begun stopped".split())
"""Last words of a string field that say when something happened or happens."""


def _described_bounds(texts: str) -> tuple[float | None, float | None]:
    """Numeric bounds a description states: "between 1 and 10", "from 0 to 100", "at least 1", ..."""
    num = r"(-?\d+(?:\.\d+)?)"
    match = re.search(rf"\bbetween {num} and {num}\b|\bfrom {num} to {num}\b|\brange (?:of |is )?{num} ?(?:-|to) ?{num}\b", texts)  # fmt: skip
    if match:
        a, b = [float(g) for g in match.groups() if g is not None]
        return (min(a, b), max(a, b))
    low = re.search(rf"\b(?:at least|minimum(?: of| is)?|min(?:imum)?:?|no less than) {num}\b", texts)
    high = re.search(rf"\b(?:at most|maximum(?: of| is)?|max(?:imum)?:?|up to|no more than) {num}\b", texts)
    return (float(low.group(1)) if low else None, float(high.group(1)) if high else None)


def column_bounds(arguments: Sequence[Any], texts: str) -> tuple[float | None, float | None]:
    """Numeric bounds of a column: the bound arguments' `minimum`/`maximum`, else its description's."""
    lo, hi = _described_bounds(texts)
    for arg in arguments:
        if not isinstance(arg, dict):
            continue
        for key, exclusive, better in (
            ("minimum", "exclusiveMinimum", max),
            ("maximum", "exclusiveMaximum", min),
        ):
            for k in (key, exclusive):
                v = arg.get(k)
                if isinstance(v, int | float) and not isinstance(v, bool):
                    current = lo if key == "minimum" else hi
                    v = v + (1 if key == "minimum" else -1) * (k == exclusive) * 0.01
                    value = v if current is None else better(current, v)
                    lo, hi = (value, hi) if key == "minimum" else (lo, value)
    if lo is not None and hi is not None and lo > hi:
        return (None, None)
    return (lo, hi)


def named_values(column_spec: dict[str, Any], arguments: Sequence[Any] = ()) -> tuple[str, ...]:
    """Values the spec itself names for a string column: the `enum`, `const`, `default` and `examples`
    of the arguments bound to it, quoted values and "e.g."/"such as"/"options are" lists in its
    description and theirs. Placeholders ("City, State", "YYYY-MM-DD") and non-values ("all",
    "none", "dontcare") are left out."""
    key = json.dumps([column_spec.get("description"), list(arguments)], sort_keys=True, default=str)
    return _named_values(key)


@functools.lru_cache(maxsize=65536)
def _named_values(key: str) -> tuple[str, ...]:
    description, arguments = json.loads(key)
    found: list[str] = []
    texts = [description] if isinstance(description, str) else []
    for arg in arguments:
        if not isinstance(arg, dict):
            continue
        for k in ("enum", "examples"):
            if isinstance(arg.get(k), list):
                found.extend(v for v in arg[k] if isinstance(v, str))
        for k in ("const", "default"):
            if isinstance(arg.get(k), str):
                found.append(arg[k])
        if isinstance(arg.get("description"), str):
            texts.append(arg["description"])
    for text in texts:
        text = html.unescape(
            text
        )  # `completed with &quot;Paid&quot;, &quot;Cancelled&quot; or &quot;Open&quot;`
        # eBay's "Valid Values: <ul><li><code>PAUSED</code></li>...": the values, never "li><li><code>PAUSED<"
        text = re.sub(
            r"<[^>]*>", " ", re.sub(r"</?(?:li|br|p|ul|ol)\b[^>]*>", ", ", text, flags=re.IGNORECASE)
        )
        found.extend(m.group(2) for m in _QUOTED.finditer(text))
        for match in _LISTED.finditer(text):
            if _HOW_WRITTEN.match(match.group(1)):
                continue  # "Multiple values can be separated with commas": how to write values, not one of them
            for item in re.split(r",|\bor\b|\band\b|/", match.group(1)):
                found.append(item.strip(" '\"`").removesuffix(" etc").strip())
    out: list[str] = []
    for value in found:
        value = value.strip()
        words = norm(value).split()
        tokens = lower_tokens(value)
        if (
            not value
            or len(value) > 60
            or len(words) > 5
            or norm(value) in _STOP_VALUES
            or words[:1] in (["the"], ["a"], ["an"], ["all"], ["any"], ["include"], ["including"])
            or set(tokens) & _NOT_VALUE_WORDS
            or re.search(r"['\"`<>]|^[^\w$#+-]|&&|\|\||:\s", value)
            or _TEMPLATE.search(value)
            or all(t in _PLACEHOLDER_WORDS for t in tokens)
            or value in out
        ):
            continue
        out.append(value)
    return tuple(out)


# ----------------------------------------------------------------------------------------------
# Columns that reference a table by name, and the generator hint of a meaning.


def referenced_table(
    spec: dict[str, Any], implicit: dict[tuple[str, str], str], table: str, column: str
) -> str | None:
    """The table `table.column` references: declared (`references`) or by its name (`implicit_references`)."""
    return spec["tables"][table]["columns"][column].get("references") or implicit.get((table, column))


def implicit_references(spec: dict[str, Any]) -> dict[tuple[str, str], str]:
    """Columns that name another table's key without `references`: `{(table, column): referenced table}`.

    A non-key `<entity>_id` column (or `<entity>id`) of the type of the referenced primary key refers
    to the table whose primary key has that name, else to the table named `<entity>` (or its plural).
    A `parent` (`parent_id`, `parentKey`, `<x>_parent`, `parent_<entity>_id` of the entity's own table) column of
    the type of its own table's primary key refers to its own table: the rows form a tree.
    """
    tables = spec["tables"]
    by_key = {s["primary_key"].lower(): t for t, s in tables.items()}
    by_name = {t.lower(): t for t in tables}
    out: dict[tuple[str, str], str] = {}
    for table, tspec in tables.items():
        pk_type = tspec["columns"][tspec["primary_key"]]["type"]
        for column, cspec in tspec["columns"].items():
            name = column.lower()
            if column == tspec["primary_key"] or "references" in cspec or "enum" in cspec:
                continue
            words = name_words(column)
            own_parent = (  # `parent_folder_id` of folders
                len(words) >= 3
                and words[0] == "parent"
                and words[-1] in ("id", "key", "uid", "ref")
                and "_".join(words[1:-1]) in (table.lower(), singular(table.lower()))
            )
            if (_is_parent(words) or own_parent) and cspec["type"] == pk_type and not cspec.get("unique"):
                out[table, column] = table  # a tree: the parent is a row of the same table
                continue
            if not (name.endswith("_id") or (name.endswith("id") and len(name) > 4)):
                continue
            entity = name[:-3] if name.endswith("_id") else name[:-2]
            target = by_key.get(name) or next(
                (
                    by_name[n]
                    for n in (entity, entity + "s", entity + "es", entity[:-1] + "ies")
                    if n in by_name
                ),
                None,
            )
            if target is None or target == table:
                continue
            tpk = tables[target]["primary_key"]
            if tables[target]["columns"][tpk]["type"] == cspec["type"]:
                out[table, column] = target
    return out


_KEY_TAILS = frozenset("id ids key keys slug slugs uuid uuids".split())
_NOT_REFERENCE_KEYS = frozenset(
    "api client secret access private public license licence encryption signing".split()
)


def _bare_entity(spec: dict[str, Any], table: str, column: str, by_name: dict[str, str]) -> str | None:
    """The other table a column named for its entity alone holds a row of (Postman's `monitors.collection`,
    e-drv's `reserves.chargestation`), where nothing else is read from its name (its meaning is `unknown`)."""
    name = column.lower()
    target = next(
        (by_name[n] for n in (name + "s", name + "es", name[:-1] + "ies", name) if n in by_name), None
    )
    if target is None or target == table:
        return None
    cspec = spec["tables"][table]["columns"][column]
    if (
        cspec["type"] not in ("string", "integer", "json")
        or column_meaning(table, column, cspec) != "unknown"
    ):
        return None
    return target


def loose_references(spec: dict[str, Any]) -> dict[tuple[str, str], tuple[str, str]]:
    """Columns that name rows of another table by a key of theirs that neither `references` nor
    `implicit_references` ties (their type or their number differs): `{(table, column): (table, key column)}`.

    A blind reader found Orbit's members, activities and webhooks under `workspace_slug`s no workspace has,
    PocketSmith's transactions in categories `cat_3401` beside categories keyed 1..20, and Vestorly's posts
    in `group_ids` of no group. A column `<entity>_id`, `_ids`, `_key`, `_slug` or `_uuid` (or `<entity>id`)
    of another table named `<entity>` (or its plural), or whose key has that name, is such a column when no
    rule ties it, and so is a column named for the entity alone whose meaning is otherwise unknown (Postman's
    `monitors.collection`); a `_slug` names the entity's `slug` column where it has one. An API's own key (`client_key`,
    `api_key`) is a secret, never a row.
    """
    tables = spec["tables"]
    by_key = {s["primary_key"].lower(): t for t, s in tables.items()}
    by_name = {t.lower(): t for t in tables}
    implicit = implicit_references(spec)
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for table, tspec in tables.items():
        for column, cspec in tspec["columns"].items():
            if (
                column == tspec["primary_key"]
                or "references" in cspec
                or "enum" in cspec
                or (table, column) in implicit
                or cspec.get("unique")
            ):
                continue
            words = name_words(column)
            if len(words) == 1 and (bare := _bare_entity(spec, table, column, by_name)) is not None:
                out[table, column] = (bare, tables[bare]["primary_key"])
                continue
            if len(words) < 2 and not re.fullmatch(r"[a-z]{3,}ids?", column.lower()):
                continue
            if len(words) >= 2:
                tail, entity_words = words[-1], words[:-1]
            else:
                tail = "ids" if column.lower().endswith("ids") else "id"
                entity_words = [column.lower()[: -len(tail)]]
            if tail not in _KEY_TAILS or set(entity_words) & _NOT_REFERENCE_KEYS:
                continue
            entity = "_".join(entity_words)
            singular_key = f"{entity}_{tail.rstrip('s')}" if tail.endswith("s") else f"{entity}_{tail}"
            target = (
                by_key.get(singular_key)
                or by_key.get(f"{entity}_id")
                or next(
                    (
                        by_name[n]
                        for n in (
                            entity,
                            entity + "s",
                            entity + "es",
                            entity[:-1] + "ies",
                            singular_word(entity),
                        )
                        if n in by_name
                    ),
                    None,
                )
            )
            if target is None or target == table:
                continue
            tcolumns = tables[target]["columns"]
            key = "slug" if tail.startswith("slug") and "slug" in tcolumns else tables[target]["primary_key"]
            out[table, column] = (target, key)
    return out


def infer_hint(table: str, column: str, column_spec: dict[str, Any]) -> str:
    """The `spec.GENERATORS` hint closest to a column's meaning (`column_meaning`): its `generator`,
    else one of `name`, `email`, `date`, `money`, `title`, ..., `word` (strings), `integer`,
    `number`, `boolean`, `json`."""
    if "generator" in column_spec:
        return column_spec["generator"]
    meaning = column_meaning(table, column, column_spec)
    kind = meaning.split(":", 1)[0]
    ctype = column_spec["type"]
    hint = {
        "person": "name", "first_name": "first_name", "last_name": "last_name", "email": "email",
        "phone": "phone", "city": "city", "country": "country", "address": "address", "street": "address",
        "date": "date", "datetime": "datetime", "status": "status", "title": "title", "named": "title",
        "text": "text", "url": "url", "uuid": "uuid", "boolean": "boolean", "json": "json",
    }.get(kind)  # fmt: skip
    if kind == "num":
        arg = meaning.split(":", 1)[1]
        hint = {"money": "money", "salary": "money", "balance": "money", "budget": "money", "revenue": "money",
                "rent": "money", "fare": "money", "quantity": "quantity", "stock": "quantity",
                "rating": "rating", "score": "rating"}.get(arg)  # fmt: skip
    if hint is not None and ctype in GENERATORS[hint]:
        return hint
    return {"string": "word", "integer": "integer", "number": "number", "boolean": "boolean", "json": "json"}[
        ctype
    ]
