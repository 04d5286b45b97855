"""Deterministic, realistic initial states for an environment spec, generated with Faker by column meaning.

`generate_state` fills every table with rows that look like a real database: each column's *meaning*
is read from its name, its table, its description and the JSON Schemas of the tool arguments bound
to it (`column_meaning`), and values are drawn to fit it, with Faker's data (`Faker("en_US")`, seeded
per data seed, table and column, so a state does not depend on the order of the tables):

- people: full, first and last names (`players.name`, `author`, `assignee`, `owner`, ...), emails
  and usernames built from the name of the person in the same row, phones, genders, job titles;
- organisations and things: companies, product titles (`products.name`), teams, hotels,
  restaurants, venues, films, songs, books, games, devices, models;
- places: cities, US states, countries and ISO codes, `City, ST` locations, street addresses, zip
  codes, airports, IANA time zones, latitudes and longitudes (coherent within a row);
- the web and files: urls, domains, hosts, IPs, paths, file names, MIME types, user agents;
- codes: ISO 4217 currencies, languages and locales, colors, SKUs, ISBNs, IBANs, versions, tokens;
- time: `*_at`/`*_date`/`due`/`deadline`/`birthday`/... relative to the environment clock
  `data.now` (created in the past, due in the future, born 18 to 90 years ago), as the schema or
  the description says (date, date-time, `MM/DD/YYYY`, ...), with end dates after start dates;
- text: descriptions, notes and messages (a sentence or two), titles, search queries, tags,
  statuses, and values of small vocabularies (units, genres, sports, platforms, ...);
- numbers: money with 2 decimals, quantities, ratings 1-5, percentages, years, ages, ... within the
  bounds of the bound arguments (`minimum`/`maximum`) and of the description ("between 1 and 10").

Keys: primary keys are `cus_0001`-style strings (a prefix of the table name) or 1..n; a column that
references a table, or is named `<entity>_id` after another table's primary key, holds existing
keys; other `*_id` columns hold id-like values. Enums, unique columns and the arguments bound to a
column (`bound_schemas`: an enum, a pattern, bounds, an array type for a json column, ...) are
respected; values the spec itself names for a column (argument `default`/`examples`, quoted values
and "e.g." lists in descriptions) are used for columns of small or unknown vocabularies. Optional
columns (notes, phones, end dates, ...) are sometimes null.

`is_filler` and `filler_share` measure how much of a state is filler: values that do not fit their
column's meaning.

Example:

```python
>>> from envscale.env.data import filler_share, generate_state
>>> spec = {"name": "crm", "tools": [], "tables": {
...     "customers": {"primary_key": "customer_id", "columns": {
...         "customer_id": {"type": "string"}, "name": {"type": "string"}, "email": {"type": "string", "unique": True}}}}}
>>> state = generate_state(spec, seed=0, rows={"customers": 2})
>>> state["customers"][0]["customer_id"]
'cus_0001'
>>> filler_share(spec, state)
0.0
```
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import json
import math
import random
import re
import threading
import unicodedata
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import jsonschema
from tqdm.auto import tqdm

from envscale.env.spec import (
    GENERATORS,
    SpecError,
    check_row_counts,
    is_nullable,
    validate_spec,
    value_problem,
)

DEFAULT_ROWS = 10
"""Rows per table when `data.rows` does not say (at most `spec.MAX_ROWS_PER_TABLE` either way)."""
PROGRESS_MIN_ROWS = 10_000
"""A state of at least this many rows in all shows a progress bar (on stderr, removed when done)."""
DEFAULT_NOW = "2025-06-01T12:00:00Z"
"""The environment's fixed clock when `data.now` does not say (dates are generated around it)."""
NULL_SHARE = 0.08
"""Share of nulls in an optional column (a nullable note, phone, website, end date, ...); other
columns declared `nullable: true` are null at `NULL_SHARE / 4`, the rest never."""

# ----------------------------------------------------------------------------------------------
# Vocabularies. Faker provides names, words, countries, currencies, languages, colors, jobs, MIME
# types and time zones; what it lacks (real cities with their states and coordinates, small
# vocabularies of API parameters) is listed here.

# city | state or region | its code | country | ISO 3166 code | IANA time zone | latitude | longitude
_PLACE_ROWS = """\
New York|New York|NY|United States|US|America/New_York|40.71|-74.01
Los Angeles|California|CA|United States|US|America/Los_Angeles|34.05|-118.24
Chicago|Illinois|IL|United States|US|America/Chicago|41.88|-87.63
Houston|Texas|TX|United States|US|America/Chicago|29.76|-95.37
Phoenix|Arizona|AZ|United States|US|America/Phoenix|33.45|-112.07
Philadelphia|Pennsylvania|PA|United States|US|America/New_York|39.95|-75.17
San Diego|California|CA|United States|US|America/Los_Angeles|32.72|-117.16
Dallas|Texas|TX|United States|US|America/Chicago|32.78|-96.80
Austin|Texas|TX|United States|US|America/Chicago|30.27|-97.74
Seattle|Washington|WA|United States|US|America/Los_Angeles|47.61|-122.33
Denver|Colorado|CO|United States|US|America/Denver|39.74|-104.99
Boston|Massachusetts|MA|United States|US|America/New_York|42.36|-71.06
Nashville|Tennessee|TN|United States|US|America/Chicago|36.16|-86.78
Portland|Oregon|OR|United States|US|America/Los_Angeles|45.52|-122.68
Las Vegas|Nevada|NV|United States|US|America/Los_Angeles|36.17|-115.14
Miami|Florida|FL|United States|US|America/New_York|25.76|-80.19
Atlanta|Georgia|GA|United States|US|America/New_York|33.75|-84.39
San Francisco|California|CA|United States|US|America/Los_Angeles|37.77|-122.42
Minneapolis|Minnesota|MN|United States|US|America/Chicago|44.98|-93.27
New Orleans|Louisiana|LA|United States|US|America/Chicago|29.95|-90.07
Orlando|Florida|FL|United States|US|America/New_York|28.54|-81.38
Salt Lake City|Utah|UT|United States|US|America/Denver|40.76|-111.89
Pittsburgh|Pennsylvania|PA|United States|US|America/New_York|40.44|-79.99
Detroit|Michigan|MI|United States|US|America/Detroit|42.33|-83.05
Baltimore|Maryland|MD|United States|US|America/New_York|39.29|-76.61
Charlotte|North Carolina|NC|United States|US|America/New_York|35.23|-80.84
Columbus|Ohio|OH|United States|US|America/New_York|39.96|-83.00
Kansas City|Missouri|MO|United States|US|America/Chicago|39.10|-94.58
Sacramento|California|CA|United States|US|America/Los_Angeles|38.58|-121.49
Berkeley|California|CA|United States|US|America/Los_Angeles|37.87|-122.27
Madison|Wisconsin|WI|United States|US|America/Chicago|43.07|-89.40
Honolulu|Hawaii|HI|United States|US|Pacific/Honolulu|21.31|-157.86
Albuquerque|New Mexico|NM|United States|US|America/Denver|35.08|-106.65
Tampa|Florida|FL|United States|US|America/New_York|27.95|-82.46
Washington|District of Columbia|DC|United States|US|America/New_York|38.91|-77.04
London|England|ENG|United Kingdom|GB|Europe/London|51.51|-0.13
Manchester|England|ENG|United Kingdom|GB|Europe/London|53.48|-2.24
Paris|Ile-de-France|IDF|France|FR|Europe/Paris|48.86|2.35
Lyon|Auvergne-Rhone-Alpes|ARA|France|FR|Europe/Paris|45.76|4.84
Berlin|Berlin|BE|Germany|DE|Europe/Berlin|52.52|13.40
Munich|Bavaria|BY|Germany|DE|Europe/Berlin|48.14|11.58
Madrid|Madrid|MD|Spain|ES|Europe/Madrid|40.42|-3.70
Barcelona|Catalonia|CT|Spain|ES|Europe/Madrid|41.39|2.17
Rome|Lazio|LZ|Italy|IT|Europe/Rome|41.90|12.50
Milan|Lombardy|LM|Italy|IT|Europe/Rome|45.46|9.19
Amsterdam|North Holland|NH|Netherlands|NL|Europe/Amsterdam|52.37|4.90
Lisbon|Lisbon|LI|Portugal|PT|Europe/Lisbon|38.72|-9.14
Dublin|Leinster|L|Ireland|IE|Europe/Dublin|53.35|-6.26
Vienna|Vienna|W|Austria|AT|Europe/Vienna|48.21|16.37
Prague|Prague|PR|Czech Republic|CZ|Europe/Prague|50.08|14.44
Warsaw|Masovia|MZ|Poland|PL|Europe/Warsaw|52.23|21.01
Stockholm|Stockholm|AB|Sweden|SE|Europe/Stockholm|59.33|18.07
Copenhagen|Capital Region|84|Denmark|DK|Europe/Copenhagen|55.68|12.57
Zurich|Zurich|ZH|Switzerland|CH|Europe/Zurich|47.38|8.54
Athens|Attica|I|Greece|GR|Europe/Athens|37.98|23.73
Istanbul|Istanbul|34|Turkey|TR|Europe/Istanbul|41.01|28.98
Tokyo|Tokyo|13|Japan|JP|Asia/Tokyo|35.68|139.69
Osaka|Osaka|27|Japan|JP|Asia/Tokyo|34.69|135.50
Seoul|Seoul|11|South Korea|KR|Asia/Seoul|37.57|126.98
Shanghai|Shanghai|SH|China|CN|Asia/Shanghai|31.23|121.47
Singapore|Singapore|SG|Singapore|SG|Asia/Singapore|1.35|103.82
Bangkok|Bangkok|10|Thailand|TH|Asia/Bangkok|13.76|100.50
Mumbai|Maharashtra|MH|India|IN|Asia/Kolkata|19.08|72.88
Bangalore|Karnataka|KA|India|IN|Asia/Kolkata|12.97|77.59
Dubai|Dubai|DU|United Arab Emirates|AE|Asia/Dubai|25.20|55.27
Sydney|New South Wales|NSW|Australia|AU|Australia/Sydney|-33.87|151.21
Melbourne|Victoria|VIC|Australia|AU|Australia/Melbourne|-37.81|144.96
Auckland|Auckland|AUK|New Zealand|NZ|Pacific/Auckland|-36.85|174.76
Toronto|Ontario|ON|Canada|CA|America/Toronto|43.65|-79.38
Vancouver|British Columbia|BC|Canada|CA|America/Vancouver|49.28|-123.12
Montreal|Quebec|QC|Canada|CA|America/Toronto|45.50|-73.57
Mexico City|Mexico City|CMX|Mexico|MX|America/Mexico_City|19.43|-99.13
Sao Paulo|Sao Paulo|SP|Brazil|BR|America/Sao_Paulo|-23.55|-46.63
Buenos Aires|Buenos Aires|C|Argentina|AR|America/Argentina/Buenos_Aires|-34.60|-58.38
Bogota|Bogota|DC|Colombia|CO|America/Bogota|4.71|-74.07
Cape Town|Western Cape|WC|South Africa|ZA|Africa/Johannesburg|-33.92|18.42
Nairobi|Nairobi|30|Kenya|KE|Africa/Nairobi|-1.29|36.82
Lagos|Lagos|LA|Nigeria|NG|Africa/Lagos|6.52|3.38
Cairo|Cairo|C|Egypt|EG|Africa/Cairo|30.04|31.24"""


@dataclasses.dataclass(frozen=True)
class _Place:
    city: str
    region: str
    region_code: str
    country: str
    country_code: str
    timezone: str
    lat: float
    lon: float

    @property
    def us(self) -> bool:
        return self.country_code == "US"


_PLACES = tuple(
    _Place(*p[:6], float(p[6]), float(p[7])) for p in (line.split("|") for line in _PLACE_ROWS.splitlines())
)
# Names of the old built-in generator: not in Faker's en_US lists, kept so that they still count as names.
_INTL_FIRST = "Ann Ben Chloe Dev Eva Femi Gus Hana Ivan Jia Kofi Lena Maya Noor Omar Priya Quinn Rosa Sam Tariq Uma Vik Wen Yara Zoe".split()
_INTL_LAST = "Lee Garcia Smith Okafor Chen Novak Patel Kim Rossi Silva Nguyen Haddad Kowalski Tanaka Brown Costa Dubois Khan Larsen Moreau".split()
# The stock filler of the old generator ("compact-jacket", "Smart kettle"): generic words outside product tables.
_STOCK = frozenset(
    "compact wireless organic classic deluxe smart portable vintage ergonomic eco "
    "lamp backpack kettle headphones notebook chair blender jacket monitor bottle".split()
)


def _lex(text: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in text.split("|") if v.strip())


# Small vocabularies, by meaning (`lex:<name>`). Values are compared case- and separator-insensitively.
_LEXICONS: dict[str, tuple[str, ...]] = {
    name: _lex(text)
    for name, text in {
        "genre": "rock|pop|jazz|hip hop|classical|country|electronic|blues|reggae|metal|folk|r&b|soul|indie|"
        "drama|comedy|thriller|horror|science fiction|fantasy|romance|documentary|animation|action|mystery|"
        "biography|adventure|punk|latin|k-pop|gospel|techno|house",
        "sport": "soccer|basketball|baseball|tennis|golf|cricket|rugby|hockey|volleyball|swimming|cycling|"
        "running|boxing|badminton|table tennis|american football|ice hockey|formula 1|skiing",
        "cuisine": "italian|mexican|japanese|chinese|indian|thai|french|greek|spanish|korean|vietnamese|"
        "lebanese|american|mediterranean|ethiopian|turkish|vegan|vegetarian|seafood|barbecue|sushi|pizza",
        "diet": "vegan|vegetarian|keto|paleo|gluten-free|low-carb|pescatarian|halal|kosher|dairy-free|"
        "mediterranean|balanced|high-protein|low-fat",
        "dish": "Margherita Pizza|Chicken Tikka Masala|Pad Thai|Caesar Salad|Beef Bourguignon|Spaghetti "
        "Carbonara|Sushi Platter|Fish Tacos|Ramen|Falafel Wrap|Greek Salad|Lasagna|Paella|Pho|Bibimbap|"
        "Chicken Curry|Cheeseburger|Mushroom Risotto|Pancakes|Chocolate Cake|Guacamole|Lentil Soup|"
        "Grilled Salmon|Beef Stew|Tiramisu|Vegetable Stir Fry",
        "species": "dog|cat|horse|rabbit|parrot|goldfish|hamster|cow|sheep|goat|lion|tiger|elephant|"
        "giraffe|zebra|wolf|fox|deer|bear|eagle|dolphin|whale|shark|penguin|koala|panda|salmon|"
        "homo sapiens|canis lupus|felis catus|escherichia coli|drosophila melanogaster|arabidopsis thaliana",
        "substance": "water|ethanol|methanol|glucose|sodium chloride|carbon dioxide|oxygen|nitrogen|hydrogen|"
        "helium|argon|methane|ammonia|benzene|acetone|copper|iron|aluminum|gold|silver|lead|mercury|"
        "sulfuric acid|hydrochloric acid|sodium hydroxide|H2O|CO2|NaCl|O2|N2|CH4|NH3|C6H12O6|H2SO4|"
        "electron|proton|neutron|photon|neutrino|air|steam|ice",
        "planet": "Mercury|Venus|Earth|Mars|Jupiter|Saturn|Uranus|Neptune|Pluto|Moon",
        "religion": "Christianity|Islam|Hinduism|Buddhism|Judaism|Sikhism|Taoism|Shinto|Jainism|"
        "Zoroastrianism|Confucianism|Bahai Faith",
        "instrument": "piano|guitar|violin|cello|drums|flute|saxophone|trumpet|clarinet|harp|bass guitar|"
        "ukulele|accordion|oboe|trombone|viola|banjo|keyboard",
        "material": "cotton|wool|silk|linen|polyester|leather|denim|nylon|bronze|marble|wood|steel|"
        "aluminum|glass|ceramic|plastic|copper|granite|oak|bamboo|concrete|clay|stone|gold|silver",
        "platform": "PC|Xbox|PlayStation|PlayStation 5|Nintendo Switch|Xbox Series X|iOS|Android|Windows|"
        "macOS|Linux|Web|Steam|Mobile|Mac",
        "league": "Premier League|La Liga|Serie A|Bundesliga|Ligue 1|NBA|NFL|MLB|NHL|MLS|WNBA|"
        "UEFA Champions League|Eredivisie|EuroLeague|Indian Premier League|Major League Baseball",
        "exchange": "NYSE|NASDAQ|LSE|TSE|HKEX|Euronext|SSE|TSX|ASX|BSE|NSE|Binance|Coinbase",
        "ticker": "AAPL|MSFT|GOOGL|AMZN|META|TSLA|NVDA|JPM|V|WMT|DIS|NFLX|KO|PEP|INTC|AMD|IBM|ORCL|BA|"
        "XOM|BTC|ETH",
        "crime": "burglary|robbery|theft|assault|fraud|vandalism|arson|homicide|embezzlement|shoplifting|"
        "identity theft|cybercrime|drug trafficking|money laundering|violent|property",
        "size": "XS|S|M|L|XL|XXL|small|medium|large|extra large|regular|king|queen|twin",
        "shape": "circle|square|rectangle|triangle|hexagon|pentagon|oval|ellipse|sphere|cube|cylinder|cone",
        "level": "low|medium|high|critical|basic|intermediate|advanced|expert|beginner|easy|hard|"
        "detailed|summary|brief|full|minimal|verbose",
        "priority": "low|normal|medium|high|urgent|critical",
        "http_method": "GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS",
        "encoding": "utf-8|utf-16|ascii|latin-1|iso-8859-1|base64|gzip|cp1252",
        "format": "json|csv|xml|yaml|pdf|html|txt|png|jpeg|mp4|mp3|docx|xlsx|markdown|parquet|IMAX|2D|3D",
        "date_format": "YYYY-MM-DD|MM/DD/YYYY|DD/MM/YYYY|DD-MM-YYYY|MM-DD-YYYY|YYYY/MM/DD|ISO 8601",
        "os": "Windows 11|Windows 10|macOS|Ubuntu|Debian|Fedora|iOS|Android|Linux|ChromeOS",
        "browser": "Chrome|Firefox|Safari|Edge|Opera|Brave",
        "payment_method": "credit card|debit card|paypal|bank transfer|apple pay|google pay|cash|"
        "gift card|invoice|wire transfer",
        "card_suit": "hearts|diamonds|clubs|spades",
        "card_rank": "Ace|King|Queen|Jack|Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten|2|3|4|5|6|7|8|9|10",
        "card": "Ace of Spades|King of Hearts|Queen of Diamonds|Jack of Clubs|Ten of Hearts|Seven of Spades|"
        "Two of Clubs|Ace of Hearts|Nine of Diamonds",
        "fuel": "gasoline|diesel|electric|hybrid|petrol|hydrogen|natural gas|biodiesel|ethanol",
        "room_type": "single|double|twin|queen|king|suite|deluxe|studio|family|standard|executive suite",
        "cabin": "economy|premium economy|business|first|first class|business class",
        "unit": "kg|g|lb|oz|m|cm|mm|km|mi|ft|in|miles|meters|feet|inches|celsius|fahrenheit|kelvin|"
        "liters|ml|gallons|seconds|minutes|hours|days|joules|calories|kcal|watts|kwh|metric|imperial|"
        "units|percent|usd|pounds|kilograms|grams|kilometers|degrees|radians|ms",
        "gender": "female|male|non-binary|other|prefer not to say|f|m",
        "nationality": "American|British|Canadian|French|German|Italian|Spanish|Japanese|Chinese|Indian|"
        "Brazilian|Mexican|Australian|Nigerian|Kenyan|Korean|Dutch|Swedish|Irish|Polish",
        "position": "goalkeeper|defender|midfielder|forward|striker|point guard|shooting guard|center|"
        "pitcher|catcher|quarterback|wide receiver|winger|Software Engineer|Product Manager|Data Analyst|"
        "Sales Representative|Designer|Accountant|Nurse|Teacher|Manager|Director|Intern",
        "specialty": "cardiology|dermatology|pediatrics|neurology|oncology|orthopedics|psychiatry|"
        "family medicine|physical therapy|cognitive behavioral therapy|couples therapy|haircut|coloring|"
        "immigration law|criminal law|family law|tax law|data science|machine learning",
        "condition": "sunny|cloudy|partly cloudy|rain|snow|thunderstorm|fog|windy|clear|overcast|drizzle|"
        "new|used|refurbished|like new|good|fair|poor|diabetes|hypertension|asthma|migraine",
        "mode": "auto|manual|on|off|eco|sport|comfort|standby|silent|normal|dark|light|test|production|"
        "driving|walking|transit|cycling|flight|train|bus|car",
        "action": "create|update|delete|approve|reject|archive|restore|assign|close|reopen|start|stop|"
        "pause|resume|login|logout|purchase|refund|cancel|ship|add|remove|lock|unlock|engage|release",
        "medium": "email|phone|sms|chat|in person|video call|letter|oil on canvas|watercolor|acrylic|"
        "digital|print|television|radio|online",
        "theme": "dark|light|fantasy|sci-fi|medieval|space|pirates|horror|nature|classic|modern|retro|"
        "minimalist|tropical|winter holiday",
        "style": "modern|classic|minimalist|vintage|industrial|scandinavian|bohemian|rustic|art deco|"
        "impressionism|realism|cubism|baroque|gothic|casual|formal|streetwear",
        "era": "Renaissance|Baroque|Victorian era|Middle Ages|Industrial Revolution|Bronze Age|Iron Age|"
        "Classical antiquity|Cold War|Roaring Twenties|Enlightenment|Romanticism|Edo period|Ming dynasty",
        "court": "Supreme Court|Court of Appeals|District Court|Superior Court|High Court|Family Court|"
        "Small Claims Court|Federal Circuit|Ninth Circuit|Second Circuit|Crown Court|Tax Court",
        "case_type": "civil|criminal|family|probate|bankruptcy|traffic|small claims|appeal|tax|"
        "immigration|employment|personal injury",
        "law_type": "contract law|criminal law|tort law|property law|family law|tax law|employment law|"
        "constitutional law|environmental law|intellectual property|administrative law|civil",
        "contract_type": "fixed-price|time and materials|lease|employment|non-disclosure|service agreement|"
        "purchase agreement|rental|subscription|full-time|part-time|contractor",
        "order_type": "market|limit|stop|stop-limit|buy|sell|dine-in|takeout|delivery|pickup|online|in-store",
        "property_type": "apartment|house|condo|townhouse|villa|studio|loft|office|retail|warehouse|land|"
        "duplex|residential|commercial",
        "game_type": "Texas Holdem|Omaha|Blackjack|Poker|Bridge|Solitaire|standard|single-player|"
        "multiplayer|co-op|tournament|casual|ranked",
        "role": "admin|editor|viewer|owner|member|guest|moderator|developer|manager|analyst|support|"
        "maintainer|contributor|reader|writer",
        "department": "Engineering|Sales|Marketing|Finance|Human Resources|Operations|Customer Support|"
        "Legal|Product|Research|IT|Procurement|Design",
        "industry": "technology|healthcare|finance|retail|manufacturing|education|energy|hospitality|"
        "transportation|real estate|media|agriculture|telecommunications|insurance",
        "skill": "Python|SQL|project management|public speaking|negotiation|data analysis|JavaScript|"
        "customer service|graphic design|machine learning|accounting|Spanish",
        "plan": "free|basic|standard|pro|premium|enterprise|starter|business|family|student|monthly|annual",
        "weekday": "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday",
        "frequency": "hourly|daily|weekly|biweekly|monthly|quarterly|yearly|annually|once|real-time",
        "channel": "email|sms|push|web|mobile app|phone|in-store|social media|chat|slack|#general",
        "source": "web|mobile app|api|import|referral|organic search|paid ads|email campaign|partner|"
        "manual entry|wikipedia|github|pypi|npm",
        "scope": "read|write|admin|read:user|repo|email|profile|openid|public|private|global|local",
        "delimiter": ",|;|\t|||:|tab|comma|semicolon|pipe",
        "resolution": "1920x1080|1280x720|3840x2160|2560x1440|800x600|1024x768|4K|1080p|720p|480p",
        "direction": "north|south|east|west|northeast|northwest|southeast|southwest|inbound|outbound|"
        "ascending|descending|asc|desc|left|right|up|down",
        "region": "North America|South America|Europe|Asia|Africa|Oceania|Middle East|Asia Pacific|"
        "Latin America|EMEA|APAC|Northeast|Midwest|South|West|Pacific Northwest|global|US|EU|UK",
        "continent": "Africa|Antarctica|Asia|Australia|Europe|North America|South America|Oceania",
        "car_make": "Toyota|Honda|Ford|Chevrolet|Tesla|BMW|Mercedes-Benz|Audi|Volkswagen|Hyundai|Kia|"
        "Nissan|Subaru|Mazda|Volvo|Porsche|Jeep|Lexus",
        "car_model": "Camry|Civic|Corolla|Model 3|Model Y|F-150|Mustang|Accord|RAV4|CR-V|Golf|3 Series|"
        "A4|Outback|CX-5|Wrangler|Prius|Leaf|Ioniq 5",
        "airline": "Delta Air Lines|United Airlines|American Airlines|Southwest Airlines|Lufthansa|"
        "British Airways|Air France|Emirates|Qatar Airways|Singapore Airlines|KLM|JetBlue|Alaska Airlines|"
        "Air Canada|Qantas|Turkish Airlines|Ryanair|easyJet",
        "carrier": "UPS|FedEx|DHL|USPS|Royal Mail|Canada Post|Verizon|AT&T|T-Mobile|Vodafone",
        "bank": "JPMorgan Chase|Bank of America|Wells Fargo|Citibank|HSBC|Barclays|Santander|BNP Paribas|"
        "Deutsche Bank|Goldman Sachs|Capital One|TD Bank|ING|Revolut",
        "brand": "Nike|Adidas|Apple|Samsung|Sony|LG|IKEA|Lego|Canon|Dell|Patagonia|Levi's|Zara|Bosch|"
        "Philips|Logitech|Dyson|KitchenAid|Lenovo|Asus",
        "device": "Sony WH-1000XM5|Bose QuietComfort 45|JBL Flip 6|AirPods Pro|Galaxy Buds2|Logitech MX Keys|"
        "Pixel 8|iPhone 15|Galaxy S24|Kindle Paperwhite|Apple Watch Series 9|Fitbit Charge 6|"
        "Nest Thermostat|Echo Dot|Ring Doorbell|Roku Ultra|MacBook Air|ThinkPad X1 Carbon",
        "device_type": "mobile|desktop|tablet|laptop|smartphone|smartwatch|tv|speaker|router|sensor|camera",
        "ml_model": "bert-base-uncased|gpt2|distilbert-base-uncased|roberta-base|t5-small|"
        "facebook/bart-large-cnn|google/flan-t5-base|openai/whisper-small|microsoft/resnet-50|"
        "deepset/roberta-base-squad2|sentence-transformers/all-MiniLM-L6-v2|microsoft/git-large-vqav2|"
        "Salesforce/blip-image-captioning-base|stabilityai/stable-diffusion-2-1|"
        "mistralai/Mistral-7B-Instruct-v0.3|meta-llama/Llama-3.1-8B-Instruct|Qwen/Qwen2.5-7B-Instruct|"
        "vikp/texify|google/vit-base-patch16-224|facebook/detr-resnet-50",
        "command": "ls -la|git status|git pull|docker ps|npm install|pip install -r requirements.txt|"
        "make test|systemctl restart nginx|df -h|tail -f /var/log/syslog|kubectl get pods|python main.py|"
        "START|STOP|restart|status|reboot|shutdown",
        "math": "x**2 + 3*x + 2|sin(x) * exp(-x)|3*x**2 - 2*x + 1|log(x) + x|x**3 - 6*x**2 + 11*x - 6|"
        "2*x + 5|cos(x) + x**2|sqrt(x) + 1/x|exp(x) - 4|x**4 - 2*x**2",
        "dna": "ATGCGTACGTTAGC|GATTACA|ATGAAACGCATTAGCACCACCATT|CGTAGCTAGCTAGGCT|TTAGGGTTAGGG|ATGGCCATTGTAATG|"
        "GCTAGCTTAGCGGATC|AUGGCCAUUGUAAUG",
        "season": "spring|summer|autumn|fall|winter|2022-2023|2023-2024|2024-2025|2023-24|2024-25|2022/2023|"
        "2023/2024|2024|2023|regular season|playoffs",
        "status": "active|inactive|pending|approved|rejected|completed|cancelled|canceled|open|closed|"
        "in progress|in_progress|on hold|on_hold|shipped|delivered|processing|failed|succeeded|success|"
        "draft|published|archived|enabled|disabled|locked|unlocked|on|off|engaged|released|disengaged|"
        "running|stopped|paused|available|unavailable|booked|confirmed|scheduled|expired|paid|unpaid|"
        "overdue|refunded|new|resolved|escalated|verified|unverified|suspended|blocked|online|offline|"
        "idle|busy|ready|queued|done|todo|to do|started|finished|returned|in stock|out of stock|"
        "sold out|waitlisted|checked in|checked out|accepted|declined|sent|received|read|unread|"
        "valid|invalid|healthy|degraded|up|down|open for enrollment|full|ok|error|warning|idle",
        "category": "Electronics|Home & Kitchen|Books|Clothing|Sports & Outdoors|Toys & Games|Beauty|"
        "Health|Grocery|Automotive|Garden|Office Supplies|Pet Supplies|Music|Movies|Jewelry|Shoes|"
        "Furniture|Baby|Tools|billing|technical support|account|shipping|returns|feedback|bug|"
        "feature request|question|urgent|general|sales|marketing|finance|travel|food|health|"
        "education|entertainment|news|sports|technology|science|politics|business|lifestyle|"
        "employment|crime|housing|transportation|environment|weather|history|art|culture",
        "tag": "new|sale|featured|bestseller|limited|eco-friendly|gift|popular|trending|clearance|"
        "premium|urgent|follow-up|vip|priority|beta|internal|customer|bug|enhancement|documentation|"
        "frontend|backend|security|performance|mobile|summer|holiday|outdoor|family|budget|luxury",
        "month": "January|February|March|April|May|June|July|August|September|October|November|December|"
        "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Oct|Nov|Dec",
        "namespace": "default|kube-system|production|staging|development|monitoring|ingress-nginx|"
        "analytics|billing|auth",
        "db_table": "orders|customers|users|products|invoices|payments|order_items|user_sessions|events|"
        "audit_log|inventory|employees|accounts|transactions|shipments|subscriptions|page_views",
        "db_name": "sales_db|analytics|inventory_prod|hr_records|customers_db|app_production|warehouse|"
        "reporting|crm|billing_db|metrics|main",
        "db_field": "created_at|updated_at|email|status|total_amount|user_id|last_login|first_name|price|"
        "quantity|order_date|country_code|is_active|description|category_id|phone_number",
        "identifier": "max_retries|user_count|total_price|is_valid|api_url|timeout_seconds|page_size|"
        "retry_delay|base_url|current_user|selected_item|isLoading|userName|itemCount|maxValue|"
        "connection_string|log_level|feature_flag",
        "class_name": "UserService|OrderRepository|PaymentGateway|InvoiceController|HttpClient|DataLoader|"
        "CacheManager|EventBus|AuthProvider|ReportGenerator|Node|TreeNode|LinkedList|Customer|Order",
        "component": "UserProfile|NavBar|ProductCard|LoginForm|Sidebar|Modal|DataTable|Header|Footer|"
        "SearchBar|CheckoutButton|Dashboard|ImageGallery|Dropdown|Toast",
        "dataset": "imdb|squad|mnist|cifar10|glue|wikitext|coco|titanic|iris|customer_churn|sales_2024|"
        "user_events|housing_prices|daily_sales.csv|transactions.parquet",
        "branch": "main|master|develop|release/1.4|feature/login-page|hotfix/payment-timeout|"
        "feature/search-filters|staging|bugfix/cart-total",
        "config": "config.yaml|settings.json|.env|pyproject.toml|config/production.json|default|"
        "fp16|batch_size=32|max_length=512|temperature=0.7",
        "language_code": "en|fr|es|de|it|pt|ja|zh|ko|ru|ar|hi|nl|sv|pl|tr|EN|FR|ES|DE|IT",
        "disease": "diabetes|hypertension|asthma|influenza|malaria|tuberculosis|COVID-19|migraine|"
        "arthritis|pneumonia|measles|cholera|Alzheimer's disease|Parkinson's disease|breast cancer|"
        "heart disease|stroke|HIV/AIDS|hepatitis B|dengue fever",
        "gene": "BRCA1|BRCA2|TP53|EGFR|KRAS|APOE|CFTR|HBB|MYC|PTEN|insulin|hemoglobin|collagen|keratin|"
        "actin|myosin|p53|HER2|ACE2|spike protein",
        "service": "Netflix|Spotify|Hulu|Disney+|Amazon Prime Video|YouTube|Apple Music|HBO Max|"
        "AWS S3|Google Drive|Dropbox|Slack|GitHub|Gmail|Stripe|Twilio|payments|auth|billing|search",
        "hobby": "reading|hiking|cooking|photography|gardening|painting|chess|cycling|yoga|gaming|"
        "knitting|fishing|traveling|swimming|woodworking|birdwatching",
        "star": "Sirius|Betelgeuse|Vega|Polaris|Rigel|Proxima Centauri|Alpha Centauri|Arcturus|"
        "Aldebaran|Antares|Canopus|Deneb|the Sun",
        "party": "Democratic Party|Republican Party|Labour Party|Conservative Party|Green Party|"
        "Liberal Democrats|Libertarian Party|Social Democratic Party",
        "zodiac": "Aries|Taurus|Gemini|Cancer|Leo|Virgo|Libra|Scorpio|Sagittarius|Capricorn|Aquarius|Pisces",
        "crop": "wheat|corn|rice|soybeans|barley|potatoes|cotton|coffee|sugarcane|tomatoes|oats|grapes",
        "phase": "melting|freezing|vaporization|condensation|sublimation|deposition|boiling|solid|liquid|gas|plasma",
        "blood_type": "A+|A-|B+|B-|AB+|AB-|O+|O-",
    }.items()
}
# Named things whose values are generated from templates and checked by shape (a proper name).
_NAMED = {
    "team", "hotel", "restaurant", "museum", "venue", "theater", "cinema", "building", "property",
    "event", "festival", "movie", "show", "song", "album", "book", "game", "artwork", "project",
    "product", "school", "hospital", "district", "park", "store", "room", "course", "battle",
    "artist", "label", "gallery", "library", "station", "airport_name", "street_name", "tournament",
    "competition", "discovery", "character", "organization",
}  # fmt: skip
_MASCOTS = _lex(
    "Falcons|Tigers|Wolves|Hawks|Bears|Lions|Eagles|Sharks|Rangers|Rovers|United|Knights|Titans|"
    "Panthers|Comets|Storm|Thunder|Giants|Pirates|Vikings|Royals|Mariners|Warriors|City FC|Athletic"
)
_HOTEL_BRANDS = _lex(
    "Hilton|Marriott|Hyatt Regency|Four Seasons|Sheraton|Westin|Holiday Inn|Ritz-Carlton|Radisson|"
    "InterContinental|Best Western|Fairmont|Kimpton|Omni|Renaissance"
)
_RESTAURANT_KINDS = _lex(
    "Bistro|Kitchen|Grill|Trattoria|Diner|Cantina|Brasserie|Noodle House|Sushi Bar|Taqueria|"
    "Steakhouse|Cafe|Tavern|Pizzeria|Ramen Bar|Smokehouse"
)
_VENUE_KINDS = _lex("Theater|Arena|Hall|Center|Pavilion|Stadium|Amphitheater|Ballroom|Playhouse|Music Hall")
_CODEWORDS = _lex(
    "Orion|Atlas|Nova|Apollo|Zephyr|Cobalt|Falcon|Phoenix|Aurora|Vega|Sierra|Titan|Helios|Juniper|"
    "Kestrel|Lumen|Polaris|Quartz|Meridian|Nimbus|Cascade|Horizon|Sequoia|Beacon|Everest|Argon"
)
_PRODUCT_BRANDS = _lex(
    "Lumina|Arcadia|Vertex|Nordic|Brightline|Kestrel|Halcyon|Trailhead|Northwind|Acme|Evergreen|Solace|Crestline"
)
_PRODUCT_ADJ = _lex(
    "Wireless|Stainless Steel|Organic Cotton|Ergonomic|Compact|Portable|Smart|Waterproof|Insulated|"
    "Bamboo|Leather|Noise-Cancelling|Cordless|Ceramic|Lightweight|Adjustable|Rechargeable|Vintage"
)
_PRODUCT_NOUN = _lex(
    "Headphones|Water Bottle|Desk Chair|Backpack|Coffee Grinder|Yoga Mat|Desk Lamp|Running Shoes|Blender|"
    "Notebook|Rain Jacket|Monitor|Keyboard|Kettle|Tent|Skillet|Throw Blanket|Bluetooth Speaker|Phone Case|"
    "Air Fryer|Sunglasses|Wall Clock|Travel Mug|Duffel Bag|Office Chair|Electric Toothbrush"
)
_TITLES = {
    "movie": _lex(
        "Inception|The Godfather|Pulp Fiction|The Dark Knight|Parasite|Spirited Away|Interstellar|"
        "The Matrix|Casablanca|Amelie|Oppenheimer|Barbie|Dune|Everything Everywhere All at Once|"
        "Jurassic Park|Titanic|Avatar|Gladiator|Forrest Gump|Coco|Black Panther|Moonlight|Whiplash"
    ),
    "book": _lex(
        "Pride and Prejudice|To Kill a Mockingbird|Nineteen Eighty-Four|The Great Gatsby|Moby-Dick|"
        "Jane Eyre|Brave New World|The Hobbit|Beloved|Dune|The Catcher in the Rye|Sapiens|"
        "Educated|Becoming|The Alchemist|Frankenstein|Dracula|Little Women|Middlemarch|Wuthering Heights"
    ),
    "song": _lex(
        "Bohemian Rhapsody|Imagine|Hey Jude|Shape of You|Blinding Lights|Rolling in the Deep|Hotel California|"
        "Billie Jean|Smells Like Teen Spirit|Yesterday|Halo|Despacito|Uptown Funk|Bad Guy|Levitating|"
        "Wonderwall|Thriller|Respect|Dancing Queen|Clocks|As It Was|Doxy"
    ),
    "album": _lex(
        "Abbey Road|Thriller|Rumours|Back in Black|The Dark Side of the Moon|Nevermind|21|1989|"
        "Kind of Blue|Lemonade|Random Access Memories|Blonde|Purple Rain|Born to Run|OK Computer|Renaissance"
    ),
    "game": _lex(
        "The Legend of Zelda: Breath of the Wild|Minecraft|Fortnite|Elden Ring|Stardew Valley|Tetris|"
        "Red Dead Redemption 2|The Witcher 3|Hades|Overwatch 2|League of Legends|Call of Duty: Warzone|"
        "Animal Crossing: New Horizons|Super Mario Odyssey|Cyberpunk 2077|Halo Infinite|Catan|Monopoly|"
        "Ticket to Ride|Chess|Valorant|Among Us|Baldur's Gate 3"
    ),
    "artwork": _lex(
        "The Starry Night|Mona Lisa|The Persistence of Memory|Girl with a Pearl Earring|The Scream|"
        "The Thinker|David|Guernica|The Birth of Venus|Water Lilies|The Kiss|American Gothic|"
        "Nighthawks|The Night Watch|Venus de Milo|Las Meninas|Sunflowers|The Great Wave off Kanagawa"
    ),
    "museum": _lex(
        "Louvre|Metropolitan Museum of Art|British Museum|Uffizi Gallery|Prado Museum|Rijksmuseum|"
        "Museum of Modern Art|Smithsonian National Air and Space Museum|Art Institute of Chicago|"
        "Tate Modern|Guggenheim Museum|Van Gogh Museum|Hermitage Museum|National Gallery|Getty Center|"
        "Natural History Museum|Musee d'Orsay|Vatican Museums"
    ),
    "artist": _lex(
        "Taylor Swift|Beyonce|Ed Sheeran|Adele|Drake|Billie Eilish|The Beatles|Queen|Coldplay|"
        "Kendrick Lamar|Bad Bunny|Miles Davis|Norah Jones|Radiohead|Dua Lipa|Bruno Mars|Vincent van Gogh|"
        "Pablo Picasso|Frida Kahlo|Claude Monet|Auguste Rodin|Georgia O'Keeffe|Michelangelo|Yayoi Kusama"
    ),
    "festival": _lex(
        "Coachella|Glastonbury|Lollapalooza|SXSW|Burning Man|Oktoberfest|Tomorrowland|Bonnaroo|"
        "Montreux Jazz Festival|Edinburgh Fringe|Sundance Film Festival|Primavera Sound|Austin City Limits"
    ),
    "battle": _lex(
        "Battle of Hastings|Battle of Waterloo|Battle of Gettysburg|Battle of Stalingrad|Battle of Midway|"
        "Battle of Thermopylae|Battle of Agincourt|Battle of the Somme|Battle of Normandy|Battle of Yorktown"
    ),
    "tournament": _lex(
        "FIFA World Cup|Wimbledon|US Open|UEFA Champions League|Super Bowl|NBA Finals|World Series|"
        "Stanley Cup Final|Copa America|Australian Open|Roland Garros|The Masters|Tour de France"
    ),
    "discovery": _lex(
        "Penicillin|Theory of relativity|DNA double helix|Radioactivity|Gravity|Electricity|"
        "Higgs boson|Vaccination|Photosynthesis|Plate tectonics|Evolution by natural selection|X-rays"
    ),
}
_NEIGHBORHOODS = _lex(
    "Downtown|Midtown|Uptown|Riverside|Westside|Eastside|Old Town|Harbor District|Financial District|"
    "Chinatown|Little Italy|SoHo|Greenwich Village|Mission District|Capitol Hill|Back Bay|Hyde Park|"
    "Shoreditch|Montmartre|Kreuzberg|Shibuya|Gangnam|Brooklyn Heights|Silver Lake|Lakeview"
)
_QUERY_WORDS = _lex(
    "wireless headphones|italian restaurants|cheap flights to Paris|jazz concerts this weekend|"
    "running shoes size 10|python tutorial|weather in Seattle|best pizza near me|hotels in Tokyo|"
    "machine learning jobs|vegan recipes|used Toyota Camry|noise cancelling headphones|coffee shops open now|"
    "Taylor Swift tickets|climate change news|NBA scores|apartment for rent Boston|yoga classes|"
    "track:Shape of You artist:Ed Sheeran|stock price AAPL|budget laptop|museum opening hours|"
    "electric cars 2024|gluten free bakery"
)
_NOTE_TEMPLATES = _lex(
    "Customer asked for gift wrapping.|Leave the package at the front door.|Called twice, no answer; "
    "will follow up by email.|Requested a refund for the damaged item.|Prefers contact by phone in the "
    "morning.|Delivery window moved to next week.|VIP: expedite processing.|Address confirmed by phone.|"
    "Awaiting payment confirmation from the bank.|Duplicate of an earlier request; merged.|"
    "Needs approval from the finance team before shipping.|Allergic to peanuts; noted for the kitchen.|"
    "Asked about bulk pricing for 50 units.|Escalated to the second-line support team.|"
    "Please call before delivery.|Item was out of stock, substituted with a similar model."
)


# ----------------------------------------------------------------------------------------------
# Faker: one instance per thread (creating one costs ~20 ms; reseeding it costs ~5 us).

_LOCAL = threading.local()


def _faker(key: str) -> Any:
    """The thread's `Faker("en_US")` generator, reseeded with `key` (deterministic across processes)."""
    fake = getattr(_LOCAL, "fake", None)
    if fake is None:
        from faker import Faker  # imported on first use: `import envscale.env` stays fast

        fake = _LOCAL.fake = Faker("en_US")["en_US"]
    fake.seed_instance(key)
    return fake


def _provider_data(fake: Any, attr: str) -> Any:
    for provider in fake.providers:
        if hasattr(provider, attr):
            return getattr(provider, attr)
    raise AttributeError(attr)


def _norm(text: str) -> str:
    """Case-, accent- and separator-insensitive form of a short value, for lexicon look-ups."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return " ".join(re.split(r"[\s_\-]+", text.strip().lower()))


@dataclasses.dataclass(frozen=True)
class _Data:
    """Faker's data, read once per process, with what the checks need."""

    first: tuple[str, ...]
    first_cum: tuple[float, ...]
    last: tuple[str, ...]
    last_cum: tuple[float, ...]
    words: tuple[str, ...]
    generic: frozenset[str]
    given: frozenset[str]
    family: frozenset[str]
    countries: tuple[str, ...]
    country_set: frozenset[str]
    alpha2: tuple[str, ...]
    alpha3: tuple[str, ...]
    currencies: tuple[str, ...]
    currency_names: frozenset[str]
    languages: tuple[str, ...]
    colors: tuple[str, ...]
    color_set: frozenset[str]
    jobs: tuple[str, ...]
    mimes: tuple[str, ...]
    timezones: tuple[str, ...]
    states: tuple[str, ...]
    states_abbr: tuple[str, ...]
    street_suffixes: tuple[str, ...]
    company_suffixes: tuple[str, ...]
    buzz: tuple[tuple[str, ...], ...]
    extensions: tuple[str, ...]
    lexicons: dict[str, frozenset[str]]


def _cumulative(weights: Iterable[float]) -> tuple[float, ...]:
    out, total = [], 0.0
    for w in weights:
        total += w
        out.append(total)
    return tuple(out)


@functools.cache
def _data() -> _Data:
    fake = _faker("0")
    first = _provider_data(fake, "first_names")
    last = _provider_data(fake, "last_names")
    lorem_en = _provider_data(fake, "word_list")
    from faker.providers.lorem.la import Provider as Latin  # the classic "lorem ipsum" words

    countries = _provider_data(fake, "countries")
    names = tuple(c.name for c in countries)
    currencies = _provider_data(fake, "currencies")
    colors = tuple(_provider_data(fake, "all_colors"))
    basic_colors = _lex(
        "red|green|blue|yellow|orange|purple|pink|brown|black|white|gray|grey|cyan|magenta|teal|navy|"
        "maroon|olive|beige|turquoise|gold|silver|violet|indigo|crimson|charcoal|ivory|lavender|mint"
    )
    mimes = tuple(m for group in _provider_data(fake, "mime_types").values() for m in group)
    extensions = tuple(e for group in _provider_data(fake, "file_extensions").values() for e in group)
    timezones = tuple(sorted({tz for c in countries for tz in c.timezones} | {p.timezone for p in _PLACES}))
    lexicons = {k: frozenset(_norm(v) for v in vs) for k, vs in _LEXICONS.items()}
    return _Data(
        first=tuple(first),
        first_cum=_cumulative(first.values()),
        last=tuple(last),
        last_cum=_cumulative(last.values()),
        words=tuple(lorem_en),
        generic=frozenset(lorem_en) | frozenset(Latin.word_list) | _STOCK | {"every", "day"},
        given=frozenset(n.lower() for n in (*first, *_INTL_FIRST)),
        family=frozenset(n.lower() for n in (*last, *_INTL_LAST)),
        countries=names,
        country_set=frozenset(_norm(n) for n in names)
        | frozenset(
            _norm(n)
            for n in (
                "USA",
                "US",
                "UK",
                "United States of America",
                "England",
                "Scotland",
                "Wales",
                "Czechia",
                "Korea",
                "Russia",
                "Vietnam",
                "Hong Kong",
                "Taiwan",
                "Palestine",
            )
        )  # fmt: skip
        | frozenset(_norm(p.country) for p in _PLACES),
        alpha2=tuple(_provider_data(fake, "alpha_2_country_codes")),
        alpha3=tuple(_provider_data(fake, "alpha_3_country_codes")),
        currencies=tuple(code for code, _ in currencies),
        currency_names=frozenset(_norm(name) for _, name in currencies),
        languages=tuple(_provider_data(fake, "language_names")),
        colors=basic_colors + tuple(re.sub(r"(?<=[a-z])(?=[A-Z])", " ", c) for c in colors),
        color_set=frozenset(_norm(c) for c in basic_colors)
        | frozenset(_norm(c) for c in colors)
        | frozenset(_norm(re.sub(r"(?<=[a-z])(?=[A-Z])", " ", c)) for c in colors),
        jobs=tuple(_provider_data(fake, "jobs")),
        mimes=mimes,
        timezones=timezones,
        states=tuple(_provider_data(fake, "states")),
        states_abbr=tuple(_provider_data(fake, "states_abbr")),
        street_suffixes=_lex("Street|Avenue|Road|Lane|Drive|Boulevard|Way|Court|Place|Terrace|Parkway"),
        company_suffixes=tuple(_provider_data(fake, "company_suffixes")),
        buzz=tuple(_provider_data(fake, "catch_phrase_words")),
        extensions=extensions,
        lexicons=lexicons,
    )


# ----------------------------------------------------------------------------------------------
# Column meaning: what a column holds, read from its name, table, description and bound arguments.


def _words(name: str) -> list[str]:
    """`shipToAddress2` -> `["ship", "to", "address"]` (digits dropped)."""
    return list(_split_words(name))


@functools.lru_cache(maxsize=65536)
def _split_words(name: str) -> tuple[str, ...]:
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()
    return tuple(w for w in re.split(r"[^a-z]+", text) if w)


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def _mapping(text: str) -> dict[str, str]:
    """`meaning: word word ...` lines -> `{word: meaning}`."""
    out: dict[str, str] = {}
    for line in text.strip().splitlines():
        meaning, words = line.split(": ", 1)
        out.update(dict.fromkeys(words.split(), meaning))
    return out


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
    "monarch king queen emperor spouse".split()
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
_ENTITY_MEANINGS = _mapping(
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
# The last word of a column name -> its meaning (first match wins after the rules in `_string_meaning`).
_TOKEN_MEANINGS = _mapping(
    """
text: description desc details notes note comment comments body content message msg text bio about
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
lex:species: species animal pet breed
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
email: email
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
secret:token: token secret nonce salt
secret:password: password passwd pwd
secret:pin: passcode pin otp
secret:apikey: apikey
secret:key: key thekey
secret:hash: hash checksum signature
secret:cursor: cursor
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
username: user login handle
code:account: account
"""
)
_EXACT_MEANINGS = _mapping(
    """
first_name: first_name firstname given_name givenname fname forename nickname nick_name first
last_name: last_name lastname surname family_name familyname lname last
middle_name: middle_name middlename middle_initial
person: full_name fullname display_name contact_name directed_by written_by created_by assigned_to
person: owned_by reported_by updated_by approved_by player assignee author owner reporter customer
person: receiver recipient sender
username: username user_name screen_name screenname login_name userid_name
country_code: country_code countrycode country_iso iso_country country_iso2
currency: currency_code currencycode base quote_currency
lex:language_code: language_code lang_code languagecode iso_language
ip: ip_address ipaddress ipv4 ipv6 client_ip remote_addr ipaddr
mime: mime_type mimetype content_type media_type contenttype
user_agent: user_agent useragent
lex:room_type: room_type roomtype bed_type
lex:cabin: travel_class seat_class cabin_class flight_class class_of_service
lex:fuel: fuel_type fueltype engine_type
lex:property_type: property_type propertytype building_type home_type housing_type
lex:game_type: game_type deck_type gametype game_mode
lex:payment_method: payment_method payment_type paymentmethod pay_method
lex:order_type: order_type ordertype trade_type side
lex:case_type: case_type casetype
lex:law_type: law_type area_of_law practice_area
lex:contract_type: contract_type employment_type job_type
lex:category: item_type product_type info_type event_type category_name
lex:device_type: device_type devicetype platform_type
lex:cuisine: food_type cuisine_type restaurant_type
lex:genre: music_genre movie_genre book_genre
lex:date_format: date_format dateformat time_format
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
state: state_code us_state
timezone: timezone_name target_timezone source_timezone
path: repo_path image img photo ssl_cert cert certificate launcher shardpath logfile img_path
path: image_path file_path backup_location storage_path output_path input_path save_path
url: avatar thumbnail website_url
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
lex:http_method: method http_method request_method httpmethod
first_name: pet_name petname
person: spouse_of spouse_name
lex:service: streaming_service service_name
"""
)
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
_PAST_WINDOW = (-730, 0)
_FUTURE_WORDS = frozenset(w for words, (lo, _) in _DATE_WINDOWS if lo > 0 for w in words)


def _date_window(name: str) -> str:
    words = set(_words(name))
    for keys, (lo, hi) in _DATE_WINDOWS:
        if words & keys:
            return f"{lo}:{hi}"
    return f"{_PAST_WINDOW[0]}:{_PAST_WINDOW[1]}"


_TEXT_KEYS = ("description", "default", "examples", "title")


def _texts(column_spec: dict[str, Any], arguments: Sequence[Any]) -> str:
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
            r"\b(?:api key|access token|auth(?:entication)? token|password|secret|passphrase)\b",
            "secret:token",
        ),
        (r"\bversion\b", "version"),
        (r"\b(?:identifier|id) (?:of|for)\b|\bunique id\b|\b(?:the|unique) identifier\b", "id"),
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
    ({"task", "ticket", "issue", "todo", "bug", "incident", "case", "request", "story"}, "task"),
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
_STATUSES = {
    "order": _lex("pending|processing|shipped|delivered|cancelled|returned"),
    "payment": _lex("pending|paid|failed|refunded|overdue"),
    "ticket": _lex("open|in progress|on hold|resolved|closed"),
    "booking": _lex("confirmed|pending|cancelled|completed|checked in"),
    "lock": _lex("locked|unlocked"),
    "switch": _lex("on|off"),
    "brake": _lex("engaged|released"),
    "run": _lex("running|stopped|idle|starting"),
    "account": _lex("active|inactive|suspended|pending"),
    "generic": _lex("active|inactive|pending|completed|archived"),
}
_PERSON_TOKENS = frozenset(
    "name full first last given family surname middle email mail address username user login handle "
    "display contact e".split()
)
_PLACE_TOKENS = frozenset(
    "city town state province country code iso zip zipcode postcode postal address street location loc "
    "timezone tz latitude longitude lat lon lng region line".split()
)


def _context(words: Iterable[str], table: str, contexts: Sequence[tuple[set[str], str]], default: str) -> str:
    pool = {_singular(w) for w in words} | {_singular(w) for w in _words(table)}
    for keys, ctx in contexts:
        if pool & keys:
            return ctx
    return default


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
    return _meaning(
        table,
        column,
        column_spec["type"],
        column_spec.get("generator"),
        _texts(column_spec, arguments),
        formats,
    )


@functools.lru_cache(maxsize=65536)
def _meaning(table: str, column: str, ctype: str, generator: str | None, texts: str, formats: tuple) -> str:
    if generator is not None:
        return _hint_meaning(generator, table, column, texts)
    if ctype == "boolean":
        return "boolean"
    if ctype == "json":
        return "json"
    if ctype in ("integer", "number"):
        return _number_meaning(table, column, texts)
    return _string_meaning(table, column, texts, formats)


def _hint_meaning(hint: str, table: str, column: str, texts: str) -> str:
    by_hint = {
        "name": "person", "date": f"date:{_date_window(column)}", "datetime": f"datetime:{_date_window(column)}",
        "money": "num:money", "quantity": "num:quantity", "rating": "num:rating", "integer": "num:int",
        "number": "num:float", "status": f"status:{_context(_words(column), table, _STATUS_CONTEXTS, 'generic')}",
        "title": f"title:{_context(_words(column), table, _TITLE_CONTEXTS, 'generic')}", "text": "text:prose",
    }  # fmt: skip
    return by_hint.get(hint, hint)


def _string_meaning(table: str, column: str, texts: str, formats: tuple) -> str:
    n = column.lower()
    words = _words(column)
    last = words[-1] if words else n
    by_format = {
        "date": f"date:{_date_window(column)}", "date-time": f"datetime:{_date_window(column)}",
        "email": "email", "idn-email": "email", "uri": "url", "url": "url", "iri": "url", "uuid": "uuid",
        "ipv4": "ip", "ipv6": "ip", "hostname": "domain", "time": "time",
    }  # fmt: skip
    for fmt in formats:
        if fmt in by_format:
            return by_format[fmt]
    if (
        n == "id"
        or last in ("id", "ids")
        or n.endswith("_id")
        or (n.endswith("id") and n[:-2] in _ENTITY_MEANINGS)
    ):
        return "uuid" if re.search(r"\buuid\b", texts) else "id"
    if (
        n.endswith("id")
        and len(n) > 4
        and n not in _NOT_IDS
        and _singular(n[:-2]) in _PERSON_WORDS | _PRODUCT_WORDS
    ):
        return "id"
    if n in _EXACT_MEANINGS:
        meaning = _EXACT_MEANINGS[n]
        return meaning
    if n in ("check_in", "check_out", "checkin", "checkout", "check_in_date", "check_out_date"):
        return "date:1:120"
    if (
        n.endswith("_at")
        or "timestamp" in n
        or "datetime" in n
        or n in ("created", "updated", "modified", "deleted")
    ):
        return f"datetime:{_date_window(column)}"
    if n.startswith(("created", "updated", "modified", "deleted", "last_modified")):
        return f"datetime:{_date_window(column)}"
    if n.endswith("name") and n not in ("name", "username", "surname") and not n.endswith("_name"):
        entity = n[: -len("name")].rstrip("_")
        if entity:
            words = [*_words(entity), "name"]
            last = "name"
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
        return (
            "state"
            if geo or _words(table)[-1:] in (["addresses"], ["locations"], ["cities"])
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
        meaning = _TOKEN_MEANINGS.get(word)
        if meaning is None:
            continue
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
        if meaning == "lex:unit" and word == "system":
            return meaning if re.search(r"\b(?:metric|imperial|unit)", texts) else "unknown"
        return meaning
    for pattern, meaning in _DESC_RULES:
        if pattern.search(texts):
            return _dated(meaning, column, texts) if meaning in ("date", "time") else meaning
    return "unknown"


def _dated(kind: str, column: str, texts: str) -> str:
    """A date/time meaning: `time`, or `date:<low>:<high>` / `datetime:<low>:<high>` (days from now)."""
    fmt = _described_format(texts)
    if kind == "time" and fmt and "%d" in fmt and "%H" in fmt:
        kind = "datetime"
    if kind == "date" and fmt and "%H" in fmt and "%d" in fmt:
        kind = "datetime"
    if kind == "time":
        return "time"
    return f"{kind}:{_date_window(column)}"


def _name_meaning(table: str, entity_words: list[str], texts: str) -> str:
    """The meaning of `<entity>_name`, or of `name` given its table."""
    table_words = [_singular(w) for w in _words(table)]
    if entity_words:
        entity = _singular(entity_words[-1])
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
    if entity in _ENTITY_MEANINGS:
        return _ENTITY_MEANINGS[entity]
    for pattern, meaning in _DESC_RULES:  # "the name of the team/player/company/..."
        if (meaning.startswith("named:") or meaning in ("person", "company")) and pattern.search(texts):
            return meaning
    return "named:label"


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
        ("followers views likes subscribers downloads visits clicks impressions", "audience", 0, 50_000, 0),
        ("employees staff headcount", "headcount", 1, 5_000, 0),
        ("stock inventory", "stock", 0, 200, 0),
        (
            "quantity qty count num number copies units seats tickets guests people passengers adults "
            "children kids rooms nights players attendees participants members items beds bedrooms "
            "bathrooms floors pieces orders servings serving portions results result ingredients",
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
        ("days day nights", "days", 1, 30, 0),
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


def _number_meaning(table: str, column: str, texts: str) -> str:
    words = set(_words(column))
    words |= {_singular(w) for w in words}
    if "id" in words or column.lower().endswith("_id"):
        return "id"
    if {"height"} & words and (column.lower().endswith("_m") or "meter" in texts):
        return "num:height_m"
    for keys, kind, *_ in _NUMBER_KINDS:
        if words & keys:
            return f"num:{kind}"
    return "num:int"


_NUMBER_RANGES = {kind: (lo, hi, dec) for _, kind, lo, hi, dec in _NUMBER_KINDS} | {
    "int": (1, 100, 2), "float": (1, 1_000, 2), "height_m": (1.5, 2.0, 2), "quantity": (1, 20, 0),
}  # fmt: skip


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
def _described_format(texts: str) -> str | None:
    """The `strftime` format of a date/time template in a description ("formatted as 'MM/DD/YYYY'")."""
    for match in _TEMPLATE.finditer(texts):
        parts = re.split(r"([-/.: t])", match.group(1), flags=re.IGNORECASE)
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
        if fmt.count("%Y") < 2 and ("%d" in fmt or "%H" in fmt or "%m" in fmt):
            return fmt
    return None


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
        found.extend(m.group(2) for m in _QUOTED.finditer(text))
        for match in _LISTED.finditer(text):
            for item in re.split(r",|\bor\b|\band\b|/", match.group(1)):
                found.append(item.strip(" '\"`").removesuffix(" etc").strip())
    out: list[str] = []
    for value in found:
        value = value.strip()
        words = _norm(value).split()
        tokens = _tokens(value)
        if (
            not value
            or len(value) > 60
            or len(words) > 5
            or _norm(value) in _STOP_VALUES
            or words[:1] in (["the"], ["a"], ["an"], ["all"], ["any"], ["include"], ["including"])
            or set(tokens) & _NOT_VALUE_WORDS
            or re.search(r"['\"`]|^[^\w$#+-]|&&|\|\||:\s", value)
            or _TEMPLATE.search(value)
            or all(t in _PLACEHOLDER_WORDS for t in tokens)
            or value in out
        ):
            continue
        out.append(value)
    return tuple(out)


# ----------------------------------------------------------------------------------------------
# Values by meaning. A maker takes a column's context and returns the function of a row index.


@dataclasses.dataclass
class _Col:
    table: str
    column: str
    spec: dict[str, Any]
    meaning: str
    rng: random.Random
    fake: Any
    now: dt.datetime
    named: tuple[str, ...] = ()
    texts: str = ""
    bounds: tuple[float | None, float | None] = (None, None)
    people: list[tuple[str, str]] | None = None
    places: list[_Place] | None = None

    @property
    def kind(self) -> str:
        return self.meaning.split(":", 1)[0]

    @property
    def arg(self) -> str:
        return self.meaning.split(":", 1)[1] if ":" in self.meaning else ""


def _first(rng: random.Random) -> str:
    d = _data()
    return rng.choices(d.first, cum_weights=d.first_cum)[0] if rng.random() < 0.9 else rng.choice(_INTL_FIRST)


def _last(rng: random.Random) -> str:
    d = _data()
    return rng.choices(d.last, cum_weights=d.last_cum)[0] if rng.random() < 0.9 else rng.choice(_INTL_LAST)


def _person(c: _Col, i: int) -> tuple[str, str]:
    return c.people[i] if c.people is not None else (_first(c.rng), _last(c.rng))


def _place(c: _Col, i: int) -> _Place:
    return c.places[i] if c.places is not None else c.rng.choice(_PLACES)


def _ascii(text: str) -> str:
    return re.sub(
        r"[^a-z0-9]", "", unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    )


def _email(first: str, last: str, rng: random.Random) -> str:
    f, la = _ascii(first), _ascii(last)
    local = rng.choice(
        (f"{f}.{la}", f"{f}.{la}", f"{f[:1]}{la}", f"{f}{la}{rng.randrange(10, 99)}", f"{f}_{la}")
    )
    return f"{local}@{rng.choice(('example.com', 'example.org', 'example.net'))}"


def _username(first: str, last: str, rng: random.Random) -> str:
    f, la = _ascii(first), _ascii(last)
    return rng.choice(
        (f"{f}{la[:1]}{rng.randrange(10, 99)}", f"{f[:1]}{la}", f"{f}.{la}", f"{f}_{la}{rng.randrange(1, 9)}")
    )


def _company(rng: random.Random) -> str:
    d = _data()
    a, b = _last(rng), _last(rng)
    return rng.choice((f"{a} {rng.choice(d.company_suffixes)}", f"{a}-{b}", f"{a}, {b} and {_last(rng)}", f"{a} {b} {rng.choice(('Group', 'Partners', 'Holdings', 'Labs', 'Industries', 'Solutions'))}"))  # fmt: skip


def _slug(text: str) -> str:
    return re.sub(r"-+", "-", re.sub(r"[^a-z0-9]+", "-", _norm(text))).strip("-") or "site"


def _product(rng: random.Random) -> str:
    return f"{rng.choice(_PRODUCT_BRANDS)} {rng.choice(_PRODUCT_ADJ)} {rng.choice(_PRODUCT_NOUN)}"


def _sentence(rng: random.Random, low: int = 6, high: int = 12) -> str:
    words = rng.choices(_data().words, k=rng.randint(low, high))
    return " ".join(words).capitalize() + "."


def _date_value(c: _Col, i: int, kind: str) -> str:
    lo, hi = (int(x) for x in c.arg.split(":")) if c.arg.count(":") == 1 else _PAST_WINDOW
    moment = c.now + dt.timedelta(seconds=c.rng.randrange(lo * 86400, max(lo * 86400 + 1, hi * 86400)))
    if lo > 0:  # future dates fall in working hours, whole quarters of an hour
        moment = moment.replace(hour=c.rng.randint(8, 19), minute=c.rng.choice((0, 15, 30, 45)), second=0)
    fmt = _described_format(c.texts)
    if fmt and ("%d" in fmt or "%m" in fmt) and (kind == "datetime" or "%H" not in fmt):
        return moment.strftime(fmt)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if kind == "datetime" else moment.date().isoformat()


def _time_value(c: _Col, i: int) -> str:
    hour, minute = c.rng.randint(7, 21), c.rng.choice((0, 15, 30, 45))
    fmt = _described_format(c.texts)
    moment = c.now.replace(hour=hour, minute=minute, second=0)
    if fmt and "%H" in fmt:
        return moment.strftime(fmt)
    if re.search(r"\b(?:am|pm)\b|12 ?h", c.texts):
        return moment.strftime("%I:%M %p").lstrip("0")
    return moment.strftime("%H:%M")


def _named_entity(c: _Col, i: int) -> str:
    r, what = c.rng, c.arg
    if what in _TITLES:
        return r.choice(_TITLES[what])
    place = _place(c, i)
    templates: dict[str, Callable[[], str]] = {
        "team": lambda: f"{place.city} {r.choice(_MASCOTS)}",
        "hotel": lambda: (
            f"{r.choice(_HOTEL_BRANDS)} {place.city}" + r.choice(("", "", " Downtown", " Airport"))
        ),
        "restaurant": lambda: r.choice(
            (
                f"{_first(r)}'s {r.choice(_RESTAURANT_KINDS)}",
                f"{_last(r)} {r.choice(_RESTAURANT_KINDS)}",
                f"The {r.choice(_CODEWORDS)} {r.choice(_RESTAURANT_KINDS)}",
            )  # fmt: skip
        ),
        "venue": lambda: f"{r.choice((_last(r), place.city))} {r.choice(_VENUE_KINDS)}",
        "building": lambda: r.choice(
            (
                f"{_last(r)} Tower",
                f"{r.choice(_CODEWORDS)} Apartments",
                f"The {_last(r)} Building",
                f"{r.choice(_CODEWORDS)} Heights",
            )  # fmt: skip
        ),
        "event": lambda: r.choice(
            (
                f"{place.city} {r.choice(('Jazz', 'Blues', 'Film', 'Food', 'Wine', 'Book', 'Tech'))} Festival",
                f"{r.choice(_CODEWORDS)} Summit {c.now.year}",
                f"{_last(r)} Charity Gala",
                f"{place.city} Marathon",
            )  # fmt: skip
        ),
        "project": lambda: r.choice(
            (
                f"Project {r.choice(_CODEWORDS)}",
                f"{r.choice(_CODEWORDS)} {r.choice(('Platform', 'API', 'Dashboard', 'Migration', 'Mobile App'))}",
            )
        ),  # fmt: skip
        "product": lambda: _product(r),
        "school": lambda: r.choice(
            (f"University of {place.city}", f"{_last(r)} High School", f"{place.city} Community College")
        ),  # fmt: skip
        "hospital": lambda: r.choice((f"{place.city} General Hospital", f"St. {_first(r)}'s Medical Center")),
        "district": lambda: r.choice(_NEIGHBORHOODS),
        "park": lambda: r.choice((f"{_last(r)} Park", f"{place.city} Botanical Garden")),
        "store": lambda: r.choice(
            (f"{place.city} {r.choice(_NEIGHBORHOODS)} Branch", f"{_last(r)}'s Market")
        ),
        "room": lambda: r.choice(
            (
                f"Conference Room {r.choice('ABCDEF')}",
                f"{r.choice(_CODEWORDS)} Room",
                f"Meeting Room {r.randint(1, 12)}",
            )
        ),  # fmt: skip
        "course": lambda: (
            f"{r.choice(('Introduction to', 'Advanced', 'Applied'))} {r.choice(('Data Science', 'Economics', 'Organic Chemistry', 'Linear Algebra', 'Creative Writing', 'Marketing', 'World History', 'Python Programming', 'Statistics'))}"
        ),  # fmt: skip
        "station": lambda: f"{place.city} {r.choice(('Central Station', 'Union Station', 'North Station'))}",
        "library": lambda: f"{place.city} Public Library",
        "character": lambda: f"{_first(r)} {_last(r)}",
        "festival": lambda: f"{place.city} Music Festival",
    }
    if what in templates:
        return templates[what]()
    thing = " ".join(w.capitalize() for w in _words(c.column) if w != "name") or " ".join(
        w.capitalize() for w in _words(_singular(c.table))
    )
    return f"{r.choice(_CODEWORDS)} {thing}".strip()


def _title(c: _Col, i: int) -> str:
    r, ctx = c.rng, c.arg
    if ctx == "product":
        return _product(r)
    if ctx in _TITLES:
        return r.choice(_TITLES[ctx])
    if ctx == "job":
        return r.choice(_data().jobs)
    if ctx == "task":
        verb = r.choice(("Fix", "Update", "Review", "Add", "Remove", "Migrate", "Investigate", "Document"))
        thing = r.choice(("login timeout on mobile", "invoice PDF export", "search filters", "onboarding emails",
                          "payment retry logic", "dashboard loading time", "API rate limits", "user permissions"))  # fmt: skip
        return f"{verb} {thing}"
    if ctx == "event":
        return _named_entity(dataclasses.replace(c, meaning="named:event"), i)
    if ctx == "course":
        return _named_entity(dataclasses.replace(c, meaning="named:course"), i)
    buzz = _data().buzz
    return f"{r.choice(buzz[0])} {r.choice(buzz[1])} {r.choice(buzz[2])}"


_PROSE = _lex(
    "Hi {first}, just confirming our meeting on {weekday} at {time}.|"
    "Following up on {topic}, as discussed with {first} on {weekday}.|"
    "The {product} arrived on time and works as described.|"
    "Please send the updated {doc} to {first} {last} before {weekday}.|"
    "Quarterly update: the {dept} team closed {n} deals in {month}.|"
    "Reminder: the {event} starts at {time} on {weekday}.|"
    "Can you recommend a good {cuisine} restaurant in {city}?|"
    "{first} asked whether the {product} ships to {country}.|"
    "Meeting notes: the {project} launch moves to {month}; {first} owns the rollout.|"
    "Our office in {city} will be closed on {weekday} for maintenance.|"
    "Translate the welcome message into {language} for the {city} office.|"
    "What will the weather be like in {city} on {weekday}?|"
    "Summarize the {doc} from {company} in three bullet points.|"
    "{first} {last} joined the {dept} team in {month} after {n} years at {company}.|"
    "Invoice {ref} from {company} is due on {weekday}.|"
    "Flight to {city} delayed by {n} minutes because of the weather.|"
    "Customer in {city} reports the {product} stopped charging after {n} days.|"
    "Great talk by {first} {last} on {topic} at the {city} meetup.|"
    "Booked a table for {n} at {time} on {weekday}; {first} will confirm.|"
    "Shared the {doc} with {company}; waiting for their feedback by {weekday}."
)
_TOPICS = _lex(
    "data privacy|the Q3 budget|the cloud migration|customer onboarding|supply chain delays|"
    "the pricing changes|the product roadmap|the hiring plan|the security audit|the API redesign"
)
_DOCS = _lex(
    "report|contract|invoice|proposal|slide deck|spreadsheet|meeting notes|design doc|quote|itinerary"
)


def _prose(r: random.Random, now: dt.datetime) -> str:
    place = r.choice(_PLACES)
    slots = {
        "first": _first(r), "last": _last(r), "city": place.city, "country": place.country,
        "weekday": r.choice(_LEXICONS["weekday"]), "month": r.choice(_LEXICONS["month"][:12]),
        "time": f"{r.randint(8, 18)}:{r.choice(('00', '15', '30', '45'))}", "product": _product(r),
        "doc": r.choice(_DOCS), "dept": r.choice(_LEXICONS["department"]), "n": r.randint(2, 45),
        "event": _named_entity_of("event", r, now, place), "cuisine": r.choice(_LEXICONS["cuisine"][:16]).capitalize(),
        "project": f"Project {r.choice(_CODEWORDS)}", "language": r.choice(_MAJOR_LANGUAGES), "company": _company(r),
        "topic": r.choice(_TOPICS), "ref": f"INV-{r.randint(1000, 99999)}",
    }  # fmt: skip
    return r.choice(_PROSE).format(**slots)


def _named_entity_of(what: str, r: random.Random, now: dt.datetime, place: _Place) -> str:
    return _named_entity(_Col("", "", {"type": "string"}, f"named:{what}", r, None, now, places=[place]), 0)


def _text(c: _Col, i: int) -> str:
    r = c.rng
    if c.arg == "note" and r.random() < 0.6:
        return r.choice(_NOTE_TEMPLATES)
    if c.arg == "review" and r.random() < 0.7:
        return r.choice(
            (
                "Great quality, arrived on time.",
                "Works as described, would buy again.",
                "Too small for my needs; returned it.",
                "Excellent service and friendly staff.",
                "Average experience, nothing special.",
                "The battery life is shorter than advertised.",
                "Five stars: fast delivery and well packaged.",
                "Not worth the price.",
            )  # fmt: skip
        )
    if re.search(r"(?:^|_)bio(?:$|_)|biography|about", c.column.lower()):
        hobby = r.sample(_LEXICONS["hobby"], 2)
        return (
            f"{r.choice(_data().jobs)} based in {r.choice(_PLACES).city}. Enjoys {hobby[0]} and {hobby[1]}."
        )
    if (
        set(_words(c.table)) & {"products", "product", "items", "item", "listings"}
        and "desc" in c.column.lower()
    ):
        return f"{_product(r)} with a {r.randint(1, 5)}-year warranty. Ships within {r.randint(1, 5)} business days."
    return _prose(r, c.now)


def _lexicon_value(c: _Col, i: int) -> str:
    name = c.arg
    if c.named and (c.rng.random() < 0.85 or name not in _LEXICONS):
        return c.rng.choice(c.named)
    if name == "unit" and re.search(r"\b(?:metric|imperial)\b", c.texts):
        return c.rng.choice(("metric", "imperial"))
    return c.rng.choice(_LEXICONS[name])


def _code(c: _Col, i: int) -> str:
    r, what, f = c.rng, c.arg, c.fake
    up, digits = "ABCDEFGHJKLMNPQRSTUVWXYZ", "0123456789"

    def pick(chars: str, k: int) -> str:
        return "".join(r.choices(chars, k=k))

    makers = {
        "sku": lambda: f"{pick(up, 3)}-{pick(digits, 5)}",
        "isbn": lambda: f.isbn13(),
        "iban": lambda: f.iban(),
        "ean": lambda: f.ean13(),
        "cik": lambda: f"{r.randrange(10**6, 2 * 10**6):010d}",
        "cpe": lambda: (
            f"cpe:2.3:a:{r.choice(('apache', 'nginx', 'openssl', 'python', 'nodejs'))}:{r.choice(('http_server', 'nginx', 'openssl', 'python', 'node.js'))}:{r.randint(1, 3)}.{r.randint(0, 20)}.{r.randint(0, 9)}:*:*:*:*:*:*:*"
        ),  # fmt: skip
        "purl": lambda: (
            f"pkg:{r.choice(('pypi', 'npm', 'maven', 'gem'))}/{r.choice(('requests', 'lodash', 'express', 'django', 'numpy', 'rails'))}@{r.randint(1, 5)}.{r.randint(0, 30)}.{r.randint(0, 9)}"
        ),  # fmt: skip
        "vin": lambda: f.vin(),
        "plate": lambda: f.license_plate(),
        "ssn": lambda: f.ssn(),
        "ein": lambda: f.ein(),
        "swift": lambda: f.swift(),
        "card": lambda: f.credit_card_number(),
        "routing": lambda: pick(digits, 9),
        "account": lambda: pick(digits, r.choice((10, 12))),
        "tracking": lambda: "1Z" + pick(up + digits, 16),
        "flight": lambda: (
            f"{r.choice(('UA', 'DL', 'AA', 'BA', 'LH', 'AF', 'EK', 'SQ', 'WN', 'B6'))}{r.randint(10, 2999)}"
        ),
        "ref": lambda: pick(up + digits, 6),
        "number": lambda: pick(digits, r.choice((6, 8, 10))),
    }
    if what in makers:
        return makers[what]()
    if re.search(r"promo|coupon|discount|voucher", c.column.lower()):
        return f"{r.choice(('SAVE', 'WELCOME', 'SPRING', 'VIP', 'FREESHIP'))}{r.choice((10, 15, 20, 25))}"
    return f"{pick(up, 2)}-{pick(digits, 4)}"


def _secret(c: _Col, i: int) -> str:
    r, what = c.rng, c.arg
    alnum = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    if what == "password":
        return "".join(r.choices(alnum, k=10)) + r.choice("!@#$%&*") + r.choice("23456789")
    if what == "pin":
        return "".join(r.choices("0123456789", k=r.choice((4, 6))))
    if what == "apikey":
        return r.choice(("sk_live_", "pk_test_", "key_", "")) + "".join(r.choices(alnum, k=32))
    if what == "hash":
        return f"{r.getrandbits(256):064x}"
    if what == "bcrypt":
        return "$2b$12$" + "".join(r.choices(alnum + "./", k=53))
    if what == "cursor":
        return "Y3Vyc29y" + "".join(r.choices(alnum, k=16))
    if what == "key":
        return f"{r.getrandbits(128):032x}"
    return "".join(r.choices(alnum, k=40))


def _path(c: _Col, i: int, kind: str) -> str:
    r = c.rng
    user = _ascii(_first(r))
    root = r.choice((f"/home/{user}", "/var/data", "/srv/app", "/opt/backups", f"/Users/{user}/Documents", "/mnt/storage"))  # fmt: skip
    folder = r.choice(
        ("reports", "images", "exports", "projects", "logs", "backups", "invoices", "models", "config")
    )
    if kind == "directory":
        return f"{root}/{folder}"
    return f"{root}/{folder}/{_filename(c)}"


def _filename(c: _Col) -> str:
    r = c.rng
    stem = r.choice(("report", "invoice", "photo", "backup", "data", "notes", "resume", "budget", "presentation",
                     "contract", "export", "screenshot", "summary", "schedule"))  # fmt: skip
    ext = r.choice(("pdf", "csv", "jpg", "png", "txt", "docx", "xlsx", "json", "zip", "pem", "log"))
    return f"{stem}_{c.now.year - r.randint(0, 2)}_{r.randint(1, 99):02d}.{ext}"


def _string_value(c: _Col, i: int) -> str:
    r, kind, d = c.rng, c.kind, _data()
    # Values the spec names: always for an unknown meaning; for a vocabulary, unless it names only one
    # or two (then mixed with the vocabulary's); now and then for titles and named things.
    named_first = (
        kind in ("unknown", "word", "query")
        or (kind in ("lex", "status") and (len(c.named) >= 3 or r.random() < 0.6))
        or (kind in ("title", "named") and r.random() < 0.3)
    )
    if c.named and named_first:
        return r.choice(c.named)
    if kind == "person":
        first, last = _person(c, i)
        return f"{first} {last}"
    if kind in ("first_name", "last_name", "middle_name"):
        first, last = _person(c, i)
        return last if kind == "last_name" else first if kind == "first_name" else _first(r)
    if kind == "people":
        return ", ".join(f"{_first(r)} {_last(r)}" for _ in range(r.randint(2, 3)))
    if kind == "email":
        return _email(*_person(c, i), r)
    if kind == "username":
        return _username(*_person(c, i), r)
    if kind == "phone":
        a, b, e = r.randint(201, 989), r.randint(200, 999), r.randint(0, 9999)
        return r.choice(
            (f"+1-{a}-{b}-{e:04d}", f"({a}) {b}-{e:04d}", f"{a}-{b}-{e:04d}", f"+1 {a} {b} {e:04d}")
        )
    if kind == "company":
        return _company(r)
    if kind == "job":
        return r.choice(d.jobs)
    if kind == "city":
        return _place(c, i).city
    if kind == "state":
        place = _place(c, i)
        us = place if place.us else r.choice(_PLACES[:35])
        abbr = re.search(r"abbrev|two[- ]letter|\bcode\b|e\.g\.,? ?'?[a-z]{2}\b", c.texts)
        return us.region_code if abbr else us.region
    if kind == "country":
        return _place(c, i).country if r.random() < 0.7 else r.choice(d.countries)
    if kind == "country_code":
        code = _place(c, i).country_code if r.random() < 0.7 else r.choice(d.alpha2)
        return (
            r.choice(d.alpha3) if re.search(r"alpha-?3|three[- ]letter|iso 3166-1 alpha-3", c.texts) else code
        )
    if kind == "location":
        place = _place(c, i)
        if not place.us and r.random() < 0.6 and "country" not in c.texts:
            place = r.choice(_PLACES[:35])
        return f"{place.city}, {place.region_code}" if place.us else f"{place.city}, {place.country}"
    if kind in ("address", "street"):
        place = _place(c, i)
        street = f"{r.randint(1, 9899)} {_last(r)} {r.choice(d.street_suffixes)}"
        if kind == "street" or not place.us:
            return street if kind == "street" else f"{street}, {place.city}, {place.country}"
        return f"{street}, {place.city}, {place.region_code} {r.randint(10000, 99950)}"
    if kind == "zip":
        return f"{r.randint(1001, 99950):05d}"
    if kind == "airport":
        return r.choice(_AIRPORTS)
    if kind == "timezone":
        return _place(c, i).timezone if r.random() < 0.8 else r.choice(d.timezones)
    if kind == "coord":
        place = _place(c, i)
        return f"{place.lat + r.uniform(-0.05, 0.05):.4f}, {place.lon + r.uniform(-0.05, 0.05):.4f}"
    if kind == "url":
        site = _slug(_last(r)) + r.choice(("", "-co", "-shop", "-labs", "-media"))
        if re.search(r"image|img|photo|avatar|thumbnail|picture|logo", c.column.lower()):
            return f"https://cdn.{site}.com/images/{r.getrandbits(40):010x}.jpg"
        return f"https://www.{site}.{r.choice(('com', 'org', 'io', 'net'))}/{r.choice(('', 'about', 'products', 'blog', 'contact', 'docs'))}"
    if kind == "domain":
        if r.random() < 0.25:
            return f"{r.randint(11, 223)}.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}"
        return f"{r.choice(('www', 'api', 'db01', 'mail', 'app', 'web02'))}.{_slug(_last(r))}.{r.choice(('com', 'io', 'net', 'internal'))}"
    if kind == "ip":
        return f"{r.randint(11, 223)}.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}"
    if kind in ("path", "directory"):
        return _path(c, i, kind)
    if kind == "filename":
        return _filename(c)
    if kind == "mime":
        return r.choice(d.mimes)
    if kind == "user_agent":
        return c.fake.user_agent()
    if kind == "currency":
        return r.choice(_MAJOR_CURRENCIES) if r.random() < 0.8 else r.choice(d.currencies)
    if kind == "language":
        if re.search(r"\b(?:iso|code|639)\b", c.texts):
            return r.choice(_LEXICONS["language_code"][:16])
        return r.choice(_MAJOR_LANGUAGES) if r.random() < 0.8 else r.choice(d.languages)
    if kind == "locale":
        return r.choice(_LOCALES).replace("_", "-" if "-" in c.texts else "_")
    if kind == "color":
        if "hex" in c.texts:
            return f"#{r.getrandbits(24):06X}"
        return r.choice(d.colors[:29]) if r.random() < 0.6 else r.choice(d.colors[29:])
    if kind in ("date", "datetime"):
        return _date_value(c, i, kind)
    if kind == "time":
        return _time_value(c, i)
    if kind == "year":
        return str(r.randint(1950, c.now.year))
    if kind == "period":
        start = c.now.date() - dt.timedelta(days=r.randint(30, 365))
        return f"{start.isoformat()} to {(start + dt.timedelta(days=r.choice((7, 30, 90)))).isoformat()}"
    if kind == "duration":
        return r.choice((f"{r.randint(1, 3)}h {r.choice((0, 15, 30, 45))}m", f"{r.randint(5, 180)} minutes", f"PT{r.randint(1, 8)}H"))  # fmt: skip
    if kind == "version":
        return f"{r.randint(0, 5)}.{r.randint(0, 20)}.{r.randint(0, 15)}"
    if kind == "code":
        return _code(c, i)
    if kind == "uuid":
        return str(uuid.UUID(int=r.getrandbits(128), version=4))
    if kind == "secret":
        return _secret(c, i)
    if kind == "id":
        entity = _singular(c.column.lower().removesuffix("_id").removesuffix("id").strip("_")) or c.table
        return format_id(id_prefix(entity), r.randint(1, 9999))
    if kind == "text":
        return _text(c, i)
    if kind == "title":
        return _title(c, i)
    if kind == "named":
        if c.arg == "artist" and r.random() < 0.4:
            return f"{_first(r)} {_last(r)}"
        return _named_entity(c, i)
    if kind == "query":
        return r.choice(_QUERY_WORDS)
    if kind == "lex":
        return _lexicon_value(c, i)
    if kind == "status":
        return r.choice(_STATUSES.get(c.arg, _STATUSES["generic"]))
    return r.choice(d.words)  # "word", and a column whose meaning is unknown (filler, by definition)


_AIRPORTS = _lex("JFK|LAX|ORD|ATL|DFW|DEN|SFO|SEA|BOS|MIA|LHR|CDG|FRA|AMS|MAD|FCO|NRT|HND|ICN|SIN|DXB|SYD|YYZ|MEX|GRU|JNB|EWR|LAS|MCO|IAH")  # fmt: skip
_MAJOR_CURRENCIES = _lex("USD|EUR|GBP|JPY|CAD|AUD|CHF|CNY|INR|MXN|BRL|SEK|NZD|SGD|HKD|KRW")
_MAJOR_LANGUAGES = _lex("English|Spanish|French|German|Italian|Portuguese|Japanese|Chinese|Korean|Arabic|Hindi|Russian|Dutch")  # fmt: skip
_LOCALES = _lex("en_US|en_GB|fr_FR|de_DE|es_ES|it_IT|ja_JP|pt_BR|zh_CN|ko_KR|nl_NL|sv_SE")


def _number_value(c: _Col, i: int) -> int | float:
    r, kind = c.rng, c.arg
    integer = c.spec["type"] == "integer"
    if kind in ("lat", "lon") and c.places is not None:
        place = c.places[i]
        value = (place.lat if kind == "lat" else place.lon) + r.uniform(-0.05, 0.05)
        return round(value) if integer else round(value, 6)
    lo, hi, dec = _NUMBER_RANGES.get(kind, _NUMBER_RANGES["int" if integer else "float"])
    if kind == "year":
        hi = c.now.year
    if kind == "rating" and integer:
        dec = 0
    blo, bhi = c.bounds
    if blo is not None or bhi is not None:
        nlo = max(lo, blo) if blo is not None else lo
        nhi = min(hi, bhi) if bhi is not None else hi
        if nlo > nhi:  # the bounds leave the meaning's range: trust the bounds
            nlo = blo if blo is not None else bhi - (hi - lo)
            nhi = bhi if bhi is not None else blo + (hi - lo)
        lo, hi = nlo, nhi
    if integer:
        first, last = math.ceil(lo), math.floor(hi)
        return r.randint(first, max(first, last))
    if kind in ("money", "salary", "revenue", "budget", "rent", "fare", "balance") and r.random() < 0.4:
        return float(max(lo, min(hi, round(r.uniform(lo, hi)) - 0.01)))  # prices like 19.99
    return round(r.uniform(lo, hi), dec if dec else 2)


def _boolean_value(c: _Col, i: int) -> bool:
    words = set(_words(c.column))
    if words & {
        "deleted",
        "archived",
        "banned",
        "blocked",
        "suspended",
        "cancelled",
        "canceled",
        "fraud",
        "spam",
    }:
        return c.rng.random() < 0.1
    if words & {"active", "enabled", "verified", "available", "valid", "visible", "published", "confirmed"}:
        return c.rng.random() < 0.8
    return c.rng.random() < 0.5


def _json_value(c: _Col, i: int) -> Any:
    r = c.rng
    if c.arg:  # a json column that tools bind to string arguments: a string of the column's meaning
        return _string_value(dataclasses.replace(c, meaning=c.arg), i)
    words = _words(c.column)
    last = words[-1] if words else ""
    single = _singular(last)
    if last != single and last not in ("details", "settings", "preferences", "attributes", "specs", "stats"):
        inner = dataclasses.replace(
            c, column=single, meaning=_meaning(c.table, single, "string", None, "", ())
        )
        if inner.meaning != "unknown":
            return [_string_value(inner, i) for _ in range(r.randint(1, 3))]
    if set(_words(c.table)) & {"products", "items", "product", "item", "listings"}:
        return {"color": r.choice(_data().colors[:12]), "size": r.choice(("S", "M", "L", "XL")), "weight_kg": round(r.uniform(0.1, 5), 2)}  # fmt: skip
    return {"tags": r.sample(_LEXICONS["tag"], 2)}


def _maker(c: _Col) -> Callable[[int], Any]:
    if c.meaning == "enum":
        enum = c.spec["enum"]
        return lambda i: c.rng.choice(enum)
    if c.kind == "num":
        return lambda i: _number_value(c, i)
    if c.meaning == "id" and c.spec["type"] == "integer":
        return lambda i: c.rng.randint(1, 99_999)
    if c.kind == "boolean":
        return lambda i: _boolean_value(c, i)
    if c.kind == "json":
        return lambda i: _json_value(c, i)
    if c.spec["type"] in ("integer", "number"):  # a string meaning on a numeric column (an explicit hint)
        return lambda i: _number_value(dataclasses.replace(c, meaning="num:int"), i)
    return lambda i: _string_value(c, i)


# ----------------------------------------------------------------------------------------------
# Filler: a string value that does not fit its column's meaning.

_ID_SHAPE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/#@+-]{0,127}$")
_UUID_SHAPE = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")
_EMAIL_SHAPE = re.compile(r"^[A-Za-z0-9._%+'-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$")
_URL_SHAPE = re.compile(
    r"^(?:https?|ftp|s3|gs|wss?)://[^\s/$.?#][^\s]*$|^www\.[^\s]+\.[a-z]{2,}\S*$", re.IGNORECASE
)
_HOST_SHAPE = re.compile(r"^(?=.{3,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$")
_IPV4_SHAPE = re.compile(r"^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$")
_PHONE_SHAPE = re.compile(r"^\+?[\d\s().\-/]{7,20}(?:\s?(?:x|ext\.?)\s?\d{1,5})?$")
_NAME_TOKEN = re.compile(r"^(?:[A-Z][a-zA-Z'\u00C0-\u017F]*(?:-[A-Z][a-zA-Z'\u00C0-\u017F]*)?\.?|[A-Z]\.|(?:de|da|van|von|der|del|la|le|di|bin|al)|I{1,3}|IV|Jr\.?|Sr\.?)$")  # fmt: skip
_DATE_SHAPES = tuple(
    re.compile(p)
    for p in (
        r"^\d{4}-\d{2}-\d{2}$", r"^\d{4}/\d{2}/\d{2}$", r"^\d{1,2}/\d{1,2}/\d{4}$", r"^\d{1,2}-\d{1,2}-\d{4}$",
        r"^\d{1,2}\.\d{1,2}\.\d{4}$", r"^\d{4}-\d{2}$", r"^\d{2}-\d{4}$", r"^\d{4}$",
        r"^[A-Z][a-z]+ \d{1,2}, \d{4}$", r"^\d{1,2} [A-Z][a-z]+ \d{4}$",
    )
)  # fmt: skip
_DATETIME_SHAPE = re.compile(
    r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$"
)
_TIME_SHAPE = re.compile(
    r"^(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:\s?[AaPp][Mm])?$|^\d{1,2}\s?[AaPp][Mm]$"
)
_VERSION_SHAPE = re.compile(r"^v?\d+(?:\.\d+){1,3}(?:[-+.][0-9A-Za-z.]+)?$|^v?\d+$")
_CODE_SHAPE = re.compile(r"^(?=.*\d)[A-Za-z0-9][A-Za-z0-9 ._:/@*+#-]{1,119}$")


def _tokens(value: str) -> list[str]:
    return re.findall(r"[a-z]+", value.lower())


def _is_generic(value: str, *, stock: bool = True) -> bool:
    """All the letters of `value` spell lorem words (Faker's en_US and Latin lorem lists) or, with
    `stock`, the stock filler words of the old generator ("compact", "kettle", ...)."""
    tokens = _tokens(value)
    generic = _data().generic if stock else _data().generic - _STOCK
    return bool(tokens) and all(t in generic for t in tokens)


def _is_proper_name(value: str, *, stock: bool = False) -> bool:
    """A name of something: 1-12 words starting with a capital letter or a digit, not only generic words."""
    words = value.split()
    return (
        0 < len(words) <= 12
        and (value[:1].isupper() or value[:1].isdigit())
        and not _is_generic(value, stock=not stock)
        and "@" not in value
        and "://" not in value
    )


def _is_person(value: str) -> bool:
    """Two to five capitalised name words (particles and initials allowed), none generic or stock."""
    words = value.replace(",", " ").split()
    if not 2 <= len(words) <= 5 or not all(_NAME_TOKEN.match(w) for w in words):
        return False
    d = _data()
    lowered = [w.strip(".").lower() for w in words]
    if any(w in _STOCK for w in lowered):
        return False
    return any(w in d.given or w in d.family for w in lowered) or not _is_generic(value)


def _is_single_name(value: str, names: frozenset[str]) -> bool:
    return (
        bool(_NAME_TOKEN.match(value))
        and (value.lower() in names or not _is_generic(value))
        and " " not in value
    )


def _in_lexicon(value: str, name: str) -> bool:
    return _norm(value) in _data().lexicons.get(name, frozenset())


def _is_date(value: str) -> bool:
    return any(p.match(value) for p in _DATE_SHAPES) or bool(_DATETIME_SHAPE.match(value))


def _fits_location(value: str) -> bool:
    parts = [p.strip() for p in value.split(",")]
    if not 1 <= len(parts) <= 4 or not all(parts):
        return False
    return all(_is_proper_name(p) or _norm(p) in _data().country_set or p.isupper() for p in parts)


_FITS: dict[str, Callable[[str, str], bool]] = {
    "id": lambda v, a: (
        bool(_ID_SHAPE.match(v)) and (any(ch.isdigit() for ch in v) or bool(_UUID_SHAPE.match(v)))
    ),
    "uuid": lambda v, a: bool(_UUID_SHAPE.match(v)),
    "person": lambda v, a: _is_person(v),
    "people": lambda v, a: all(_is_person(p.strip()) for p in re.split(r",|;| and ", v) if p.strip()),
    "first_name": lambda v, a: _is_single_name(v, _data().given),
    "last_name": lambda v, a: _is_single_name(v, _data().family),
    "middle_name": lambda v, a: _is_single_name(v, _data().given) or bool(re.match(r"^[A-Z]\.?$", v)),
    "username": lambda v, a: bool(re.match(r"^@?[A-Za-z0-9][A-Za-z0-9._-]{2,31}$", v)) and not _is_generic(v),
    "email": lambda v, a: bool(_EMAIL_SHAPE.match(v)),
    "phone": lambda v, a: bool(_PHONE_SHAPE.match(v)) and sum(ch.isdigit() for ch in v) >= 7,
    "company": lambda v, a: _is_proper_name(v) or _in_lexicon(v, "brand"),
    "job": lambda v, a: _is_proper_name(v) or _in_lexicon(v, "position"),
    "city": lambda v, a: _is_proper_name(v) and len(v.split()) <= 5 and not any(ch.isdigit() for ch in v),
    "state": lambda v, a: (
        v in _data().states
        or v in _data().states_abbr
        or _is_proper_name(v)
        or bool(re.match(r"^[A-Z]{2,3}$", v))
    ),  # fmt: skip
    "country": lambda v, a: _norm(v) in _data().country_set,
    "country_code": lambda v, a: (
        v.upper() in _data().alpha2 or v.upper() in _data().alpha3 or v.upper() in ("UK", "EU")
    ),  # fmt: skip
    "location": lambda v, a: _fits_location(v),
    "address": lambda v, a: any(ch.isdigit() for ch in v) and len(_tokens(v)) >= 1 and len(v.split()) >= 2,
    "street": lambda v, a: len(v.split()) >= 2 and not _is_generic(v),
    "zip": lambda v, a: bool(re.match(r"^(?=.*\d)[A-Za-z0-9][A-Za-z0-9 -]{2,9}$", v)),
    "airport": lambda v, a: (
        bool(re.match(r"^[A-Z]{3,4}$", v)) or ("airport" in v.lower() and _is_proper_name(v))
    ),
    "timezone": lambda v, a: bool(
        re.match(
            r"^(?:[A-Z][A-Za-z_+-]+(?:/[A-Za-z0-9_+-]+){1,2}|UTC|GMT|Z|(?:UTC|GMT)?[+-]\d{1,2}(?::?\d{2})?|[A-Z]{2,5})$",
            v,
        )
    ),  # fmt: skip
    "coord": lambda v, a: bool(re.match(r"^-?\d{1,3}(?:\.\d+)?\s*,\s*-?\d{1,3}(?:\.\d+)?$", v)),
    "url": lambda v, a: bool(_URL_SHAPE.match(v)),
    "domain": lambda v, a: bool(_HOST_SHAPE.match(v) or _IPV4_SHAPE.match(v)) or v == "localhost",
    "ip": lambda v, a: bool(_IPV4_SHAPE.match(v)) or (":" in v and bool(re.match(r"^[0-9a-fA-F:]+$", v))),
    "path": lambda v, a: bool(
        re.match(r"^(?:[A-Za-z]:\\|\\\\|/|~/|\./|\.\./|[\w.-]+/)\S*|^[\w.-]+\.[A-Za-z0-9]{1,5}$", v)
    ),  # fmt: skip
    "directory": lambda v, a: ("/" in v or "\\" in v) and " " not in v.strip(),
    "filename": lambda v, a: bool(re.match(r"^[\w.-]+\.[A-Za-z0-9]{1,5}$", v)) or "/" in v,
    "mime": lambda v, a: bool(re.match(r"^[a-z]+/[A-Za-z0-9.+-]+$", v)),
    "user_agent": lambda v, a: "/" in v and len(v) > 10,
    "currency": lambda v, a: (
        v.upper() in _data().currencies or _norm(v) in _data().currency_names or v in "$€£¥"
    ),
    "language": lambda v, a: (
        v in _data().languages
        or _in_lexicon(v, "language_code")
        or bool(re.match(r"^[a-z]{2}(?:[-_][A-Z]{2})?$", v))
    ),  # fmt: skip
    "locale": lambda v, a: bool(re.match(r"^[a-z]{2,3}(?:[-_][A-Za-z]{2,4})?$", v)),
    "color": lambda v, a: (
        _norm(v) in _data().color_set or bool(re.match(r"^#?[0-9A-Fa-f]{6}$|^#[0-9A-Fa-f]{3}$|^rgba?\(", v))
    ),  # fmt: skip
    "date": lambda v, a: _is_date(v),
    "datetime": lambda v, a: bool(_DATETIME_SHAPE.match(v)) or _is_date(v),
    "time": lambda v, a: bool(_TIME_SHAPE.match(v)) or bool(_DATETIME_SHAPE.match(v)),
    "year": lambda v, a: bool(re.match(r"^\d{4}$", v)),
    "period": lambda v, a: bool(re.search(r"\d", v)) or _in_lexicon(v, "frequency"),
    "duration": lambda v, a: bool(re.search(r"\d", v)),
    "version": lambda v, a: bool(_VERSION_SHAPE.match(v)),
    "code": lambda v, a: bool(_CODE_SHAPE.match(v)),
    "secret": lambda v, a: " " not in v and len(v) >= 4 and any(ch.isdigit() for ch in v),
    "text": lambda v, a: (
        (len(v.split()) >= 3 or (len(v.split()) >= 2 and v.rstrip()[-1:] in ".!?")) and not _is_generic(v)
    ),
    "title": lambda v, a: _is_proper_name(v, stock=a == "product") and len(v.split()) <= 15,
    "named": lambda v, a: _is_proper_name(v, stock=a == "product"),
    "query": lambda v, a: 0 < len(v.split()) <= 10 and not _is_generic(v),
    "lex": lambda v, a: _in_lexicon(v, a),
    "status": lambda v, a: _in_lexicon(v, "status"),
    "word": lambda v, a: bool(v.strip()) and " " not in v.strip(),
    "num": lambda v, a: bool(re.match(r"^-?\$?\d[\d,]*(?:\.\d+)?%?$", v)),
    "unknown": lambda v, a: not _is_generic(v),
}


def is_filler(
    table: str,
    column: str,
    column_spec: dict[str, Any],
    value: Any,
    *,
    arguments: Sequence[Any] = (),
    primary_key: bool = False,
) -> bool:
    """Whether a string cell is filler: a value that does not fit its column's meaning.

    Only strings are judged (anything else, `None` included, is not filler). The column's meaning is
    `column_meaning(table, column, column_spec, arguments)`, read from the column alone, never from
    how the value was made; a value is filler when:

    - key columns (the primary key, a `references` column, `*_id`): it is not id-shaped (no spaces,
      with a digit, or a UUID), e.g. a word such as `"compact-jacket"` in `orders.customer_id`;
    - an `enum` column: it is not in the enum;
    - a column of a checkable shape (person names, first/last names, emails, usernames, phones,
      dates, datetimes, times, years, urls, domains, IPs, paths, file names, MIME types, UUIDs, ids,
      codes, versions, secrets, ISO country codes, countries, currencies, languages, locales, time
      zones, colors, zip codes, coordinates, cities, `City, ST` locations, addresses): it does not
      have that shape. A person name is 2-5 capitalised name words, at least one of them a known
      given or family name or not a lorem word, none a stock product word: "Smart kettle" in
      `players.name` is filler, "Maria Lopez" is not;
    - a column of a small vocabulary (`lex:*`, statuses: units, genres, sports, platforms, leagues,
      ...): it is not in the vocabulary (a lexicon of real values; case and separators ignored);
    - named things (companies, teams, hotels, films, products, titles, ...): it is not a proper name
      (1-12 words from a capital or a digit) or all its words are generic, i.e. lorem words
      (Faker's en_US and Latin lists) or, outside product columns, the old stock filler words;
    - free text (descriptions, notes, messages): it is not sentence-like (fewer than 3 words);
    - search queries, and columns whose meaning is not recognised at all: all its words are generic.

    A value the spec itself allows always fits: one in the `enum` or `const` of a bound argument, one
    matching a bound argument's `pattern`, and, for vocabularies, named things, titles and unknown
    meanings, one the spec names (`named_values`: defaults, examples, quoted and "e.g." values).

    Args:
        table (`str`): The table.
        column (`str`): The column.
        column_spec (`dict`): The column's spec.
        value (`Any`): The cell.
        arguments (`Sequence[dict]`, *optional*): JSON Schemas of the tool arguments bound to the
            column (`bound_schemas(spec).get((table, column), [])`); `filler_share` passes them.
        primary_key (`bool`, *optional*, defaults to `False`): The column is its table's primary key.

    Returns:
        `bool`: `True` when the value is filler.
    """
    if not isinstance(value, str):
        return False
    meaning = column_meaning(table, column, column_spec, arguments, primary_key=primary_key)
    return _is_filler_value(meaning, value, column_spec, arguments)


_NAMED_FIT = frozenset(
    ("lex", "status", "named", "title", "unknown", "query", "word", "code", "company", "job")
)


def _is_filler_value(meaning: str, value: str, column_spec: dict[str, Any], arguments: Sequence[Any]) -> bool:
    if meaning == "enum":
        return value not in column_spec["enum"]
    for arg in arguments:
        if not isinstance(arg, dict):
            continue
        if value in (arg.get("enum") or ()) or ("const" in arg and value == arg["const"]):
            return False
        if isinstance(arg.get("pattern"), str):
            try:
                if re.search(arg["pattern"], value):
                    return False
            except re.error:
                pass
    kind, _, arg = meaning.partition(":")
    if kind in _NAMED_FIT and (arguments or column_spec.get("description")):
        named = named_values(column_spec, arguments)
        if value in named or _norm(value) in {_norm(v) for v in named}:
            return False
    check = _FITS.get(kind, _FITS["unknown"])
    return not check(value.strip(), arg)


def filler_counts(
    spec: dict[str, Any], state: dict[str, list[dict[str, Any]]]
) -> dict[tuple[str, str], tuple[int, int]]:
    """Filler and string cells per column, `{(table, column): (filler, strings)}`, for string cells only
    (columns without string cells are left out). See `is_filler`."""
    bound = bound_schemas(spec)
    out: dict[tuple[str, str], tuple[int, int]] = {}
    for table, rows in state.items():
        tspec = spec["tables"][table]
        for column, cspec in tspec["columns"].items():
            args = bound.get((table, column), [])
            meaning = column_meaning(table, column, cspec, args, primary_key=column == tspec["primary_key"])
            filler = strings = 0
            for row in rows:
                value = row.get(column)
                if isinstance(value, str):
                    strings += 1
                    filler += _is_filler_value(meaning, value, cspec, args)
            if strings:
                out[table, column] = (filler, strings)
    return out


def filler_share(spec: dict[str, Any], state: dict[str, list[dict[str, Any]]]) -> float:
    """The share of a state's string cells that are filler (`is_filler`), 0.0 for a state without strings.

    Example:

    ```python
    >>> from envscale.env.data import filler_share, generate_state
    >>> from envscale.env.spec import load_spec
    >>> spec = load_spec("tests/fixtures/envs/shop.yaml")
    >>> filler_share(spec, generate_state(spec, seed=0)) <= 0.2
    True
    ```
    """
    counts = filler_counts(spec, state).values()
    strings = sum(s for _, s in counts)
    return sum(f for f, _ in counts) / strings if strings else 0.0


# ----------------------------------------------------------------------------------------------
# Values that satisfy a JSON Schema (tool arguments), used for columns bound to constrained arguments.

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@functools.lru_cache(maxsize=4096)
def _validator_of(text: str) -> Any:
    schema = json.loads(text)
    return jsonschema.validators.validator_for(schema)(schema)


_ANNOTATIONS = {"description", "title", "default", "examples", "$comment", "deprecated"}


def _is_type(value: Any, kind: Any) -> bool:
    """JSON Schema's `type` check (a float with an integral value is an integer)."""
    if kind in ("integer", "number"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        return kind == "number" or isinstance(value, int) or value.is_integer()
    types = {"string": str, "boolean": bool, "array": list, "object": dict}
    return value is None if kind == "null" else isinstance(value, types[kind]) if kind in types else False


def schema_accepts(schema: Any, value: Any) -> bool:
    """Whether `value` is valid under the JSON Schema `schema` (`True` for a schema that cannot be checked)."""
    if not isinstance(schema, dict):
        return schema is not False
    if set(schema) <= _ANNOTATIONS | {"type"} and isinstance(schema.get("type", "string"), str | list):
        kinds = schema.get("type")
        if kinds is None:
            return True
        return any(_is_type(value, kind) for kind in ([kinds] if isinstance(kinds, str) else kinds))
    try:
        return _validator_of(json.dumps(schema, sort_keys=True, default=str)).is_valid(value)
    except (jsonschema.SchemaError, TypeError, ValueError, RecursionError):
        return True


def schema_value(schema: Any, rng: random.Random, now: dt.datetime, *, depth: int = 0) -> Any:
    """A value meant to be valid under a JSON Schema, best effort (the caller checks it with `schema_accepts`).

    Handles `const`, `enum`, `anyOf`/`oneOf`/`allOf`, `type` (or a list of types; null is a last
    resort), numeric bounds and `multipleOf`, `minLength`/`maxLength`, simple `pattern`s, `format`
    (date, date-time, time, email, uri, uuid), arrays (`items`, `prefixItems`, `minItems`,
    `maxItems`, `uniqueItems`) and objects (`properties`, `required`, `additionalProperties`).
    """
    if not isinstance(schema, dict) or depth > 8:
        return rng.choice(_data().words)
    if "const" in schema:
        return schema["const"]
    rest = {
        k: v for k, v in schema.items() if k not in ("enum", "anyOf", "oneOf", "allOf", "default", "examples")
    }
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        fitting = [v for v in schema["enum"] if schema_accepts(rest, v)]
        return rng.choice(fitting or schema["enum"])
    for combinator in ("anyOf", "oneOf"):
        branches = [b for b in schema.get(combinator) or [] if isinstance(b, dict)]
        if branches:
            non_null = [b for b in branches if b.get("type") != "null"] or branches
            return schema_value({**rest, **rng.choice(non_null)}, rng, now, depth=depth + 1)
    if isinstance(schema.get("allOf"), list):
        merged = dict(rest)
        for branch in schema["allOf"]:
            if isinstance(branch, dict):
                merged.update(branch)
        return schema_value(merged, rng, now, depth=depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        kind = rng.choice(kinds) if kinds else "null"
    if kind is None:
        kind = (
            "object" if "properties" in schema or "required" in schema
            else "array" if "items" in schema or "prefixItems" in schema
            else "number" if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"))
            else "string"
        )  # fmt: skip
    if kind in ("integer", "number"):
        return _schema_number(schema, kind, rng)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "array":
        return _array_value(schema, rng, now, depth)
    if kind == "object":
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = [r for r in schema.get("required") or [] if isinstance(r, str)]
        names = [p for p in props if p in required or rng.random() < 0.5] + [
            r for r in required if r not in props
        ]
        return {p: schema_value(props.get(p, {}), rng, now, depth=depth + 1) for p in names}
    return _schema_string(schema, rng, now)


def _schema_number(schema: dict[str, Any], kind: str, rng: random.Random) -> int | float:
    lo, hi = schema.get("minimum"), schema.get("maximum")
    step = 1 if kind == "integer" else 0.01
    if isinstance(schema.get("exclusiveMinimum"), int | float) and not isinstance(
        schema["exclusiveMinimum"], bool
    ):
        lo = (
            max(lo, schema["exclusiveMinimum"] + step)
            if isinstance(lo, int | float)
            else schema["exclusiveMinimum"] + step
        )
    if isinstance(schema.get("exclusiveMaximum"), int | float) and not isinstance(
        schema["exclusiveMaximum"], bool
    ):
        hi = (
            min(hi, schema["exclusiveMaximum"] - step)
            if isinstance(hi, int | float)
            else schema["exclusiveMaximum"] - step
        )
    lo = lo if isinstance(lo, int | float) and not isinstance(lo, bool) else None
    hi = hi if isinstance(hi, int | float) and not isinstance(hi, bool) else None
    if lo is None and hi is None:
        lo, hi = 1, 10 if kind == "integer" else 100
    elif lo is None:
        lo = min(1, hi) if hi >= 1 else hi - 10
    elif hi is None:
        hi = lo + (10 if kind == "integer" else 100)
    multiple = schema.get("multipleOf")
    if isinstance(multiple, int | float) and not isinstance(multiple, bool) and multiple > 0:
        first, last = math.ceil(lo / multiple), math.floor(hi / multiple)
        value = rng.randint(first, max(first, last)) * multiple
        return int(value) if kind == "integer" else value
    if kind == "integer":
        first, last = math.ceil(lo), math.floor(hi)
        return rng.randint(first, max(first, last))
    return round(rng.uniform(lo, hi), 2) if hi - lo >= 0.02 else lo


def _array_value(schema: dict[str, Any], rng: random.Random, now: dt.datetime, depth: int) -> list[Any]:
    low = schema.get("minItems", 0) if isinstance(schema.get("minItems"), int) else 0
    high = schema.get("maxItems") if isinstance(schema.get("maxItems"), int) else max(low, 3)
    n = rng.randint(max(low, min(1, high)), max(low, min(high, low + 2, 3) if high >= 1 else low))
    prefix = schema.get("prefixItems") if isinstance(schema.get("prefixItems"), list) else []
    items = schema.get("items", {})
    if isinstance(items, list):  # draft 4-7 tuple validation
        prefix, items = items, schema.get("additionalItems", {})
    n = max(n, min(len(prefix), high))
    values: list[Any] = []
    for i in range(n):
        sub = prefix[i] if i < len(prefix) else items if isinstance(items, dict) else {}
        value = schema_value(sub, rng, now, depth=depth + 1)
        if schema.get("uniqueItems"):
            for _ in range(5):
                if value not in values:
                    break
                value = schema_value(sub, rng, now, depth=depth + 1)
            if value in values:
                break
        values.append(value)
    return values


def _schema_string(schema: dict[str, Any], rng: random.Random, now: dt.datetime) -> str:
    fmt = schema.get("format")
    pattern = schema.get("pattern")
    value = None
    if isinstance(pattern, str):
        value = pattern_value(pattern, rng)
    if value is None:
        value = _format_value(fmt, rng, now)
    low = schema.get("minLength") if isinstance(schema.get("minLength"), int) else 0
    high = schema.get("maxLength") if isinstance(schema.get("maxLength"), int) else None
    if len(value) < low:
        value += "".join(rng.choice(_LETTERS) for _ in range(low - len(value)))
    if high is not None and len(value) > high:
        value = value[:high]
    return value


def pattern_value(pattern: str, rng: random.Random) -> str | None:
    """A string matching a simple regular expression (`re.search`), or `None` when none could be built."""
    try:
        parsed = re._parser.parse(pattern)  # type: ignore[attr-defined]
    except (re.error, RecursionError, OverflowError):
        return None
    for _ in range(5):
        try:
            text = _from_regex(list(parsed), rng)
        except _Unsupported:
            return None
        if re.search(pattern, text):
            return text
    return None


class _Unsupported(Exception):
    pass


_CATEGORIES = {
    "CATEGORY_DIGIT": "0123456789",
    "CATEGORY_WORD": _LETTERS + "0123456789",
    "CATEGORY_SPACE": " ",
    "CATEGORY_NOT_DIGIT": _LETTERS,
    "CATEGORY_NOT_WORD": "-",
    "CATEGORY_NOT_SPACE": _LETTERS,
}


def _from_regex(items: list[Any], rng: random.Random, groups: dict[int, str] | None = None) -> str:
    groups = {} if groups is None else groups
    out = []
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "NOT_LITERAL":
            out.append(rng.choice([c for c in _LETTERS + "0123456789" if ord(c) != arg]))
        elif name == "ANY":
            out.append(rng.choice(_LETTERS))
        elif name == "IN":
            out.append(_from_set(arg, rng))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, sub = arg
            count = rng.randint(low, max(low, min(high, low + 3)))
            out.extend(_from_regex(list(sub), rng, groups) for _ in range(count))
        elif name == "SUBPATTERN":
            text = _from_regex(list(arg[-1]), rng, groups)
            if arg[0] is not None:
                groups[arg[0]] = text
            out.append(text)
        elif name == "BRANCH":
            out.append(_from_regex(list(rng.choice(arg[1])), rng, groups))
        elif name == "GROUPREF":
            out.append(groups.get(arg, ""))
        elif name == "AT":
            continue
        else:
            raise _Unsupported(name)
    return "".join(out)


def _from_set(items: list[Any], rng: random.Random) -> str:
    chars: list[str] = []
    negate = False
    for op, arg in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            chars.append(chr(arg))
        elif name == "RANGE":
            chars.extend(chr(c) for c in range(arg[0], min(arg[1], arg[0] + 200) + 1))
        elif name == "CATEGORY":
            chars.extend(_CATEGORIES.get(str(arg), ""))
        else:
            raise _Unsupported(name)
    if negate:
        pool = [c for c in _LETTERS + _LETTERS.upper() + "0123456789" if c not in chars]
        return rng.choice(pool) if pool else "~"
    if not chars:
        raise _Unsupported("empty set")
    return rng.choice(chars)


def bound_schemas(spec: dict[str, Any]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The argument schemas that tools bind to each column, as `{(table, column): [schema, ...]}`.

    Keys, eq/ne filters, inserted and updated values bind the whole argument; an `in` filter binds
    its `items`; `contains` and range filters say nothing about a column's values. Keys and filters
    come first in each list: where arguments disagree (two enums), existing rows should be found.
    """
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    read_schemas: dict[tuple[str, str], list[dict[str, Any]]] = {}
    write_schemas: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for tool in spec.get("tools", []):
        op, props = tool["operation"], tool["parameters"].get("properties", {})
        # (an argument is named by a string; other forms, such as expressions, bind no schema)
        reads = [(c, props.get(a) if isinstance(a, str) else None) for c, a in op.get("key", {}).items()]
        for flt in op.get("filters", []):
            prop = props.get(flt.get("arg")) if isinstance(flt.get("arg"), str) else None
            if flt.get("op", "eq") in ("eq", "ne"):
                reads.append((flt["column"], prop))
            elif flt.get("op") == "in" and isinstance(prop, dict):
                reads.append((flt["column"], prop.get("items")))
        writes = [
            (c, props.get(a) if isinstance(a, str) else None)
            for c, a in {**op.get("values", {}), **op.get("set", {})}.items()
        ]
        for pairs, found in ((reads, read_schemas), (writes, write_schemas)):
            for column, prop in pairs:
                if isinstance(prop, dict) and set(prop) - _ANNOTATIONS:
                    found.setdefault((op["table"], column), []).append(prop)
    for key in {**read_schemas, **write_schemas}:
        out[key] = read_schemas.get(key, []) + write_schemas.get(key, [])
    return out


def _format_value(fmt: Any, rng: random.Random, now: dt.datetime) -> str:
    """A string of a JSON Schema `format` (date, date-time, time, email, uri, uuid), else a word."""
    moment = now - dt.timedelta(seconds=rng.randrange(730 * 86400))
    if fmt == "date":
        return moment.date().isoformat()
    if fmt == "date-time":
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    if fmt == "time":
        return f"{rng.randrange(24):02d}:{rng.randrange(60):02d}:00"
    if fmt in ("email", "idn-email"):
        return _email(_first(rng), _last(rng), rng)
    if fmt in ("uri", "url", "iri"):
        return f"https://www.{_slug(_last(rng))}.com/"
    if fmt == "uuid":
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    return rng.choice(_data().words)


def _acceptor(schema: Any) -> Callable[[Any], bool]:
    """`schema_accepts(schema, value)` as a function of `value`, with the schema's checks compiled once."""
    if not isinstance(schema, dict):
        return lambda value: schema is not False
    if set(schema) <= _ANNOTATIONS | {"type"} and isinstance(schema.get("type", "string"), str | list):
        kinds = schema.get("type")
        if kinds is None:
            return lambda value: True
        kinds = [kinds] if isinstance(kinds, str) else kinds
        return lambda value: any(_is_type(value, kind) for kind in kinds)
    try:
        validator = _validator_of(json.dumps(schema, sort_keys=True, default=str))
    except (jsonschema.SchemaError, TypeError, ValueError, RecursionError):
        return lambda value: True

    def accepts(value: Any) -> bool:
        try:
            return validator.is_valid(value)
        except (jsonschema.SchemaError, TypeError, ValueError, RecursionError):
            return True

    return accepts


def _fit_bound(
    value: Any,
    column_spec: dict[str, Any],
    schemas: list[dict[str, Any]],
    rng: random.Random,
    now: dt.datetime,
    accepts: Sequence[Callable[[Any], bool]] | None = None,
) -> Any:
    """`value`, or when some argument bound to its column rejects it, a value those arguments accept."""
    accepts = [_acceptor(s) for s in schemas] if accepts is None else accepts
    if all(a(value) for a in accepts):
        return value
    fallback = None
    for attempt in range(10):
        k = rng.randrange(len(schemas)) if attempt else 0  # the first (a key or filter) first
        candidate = schema_value(schemas[k], rng, now)
        if candidate is None or value_problem(column_spec, candidate) is not None:
            continue
        if all(a(candidate) for a in accepts):
            return candidate
        if fallback is None and accepts[k](candidate):
            fallback = candidate
    return value if fallback is None else fallback


def _make_unique(value: Any, index: int, seen: set[Any]) -> Any:
    """`value`, or a variant of it derived from the row index, that is not in `seen`."""
    if value not in seen:
        return value
    if isinstance(value, str):
        local, at, domain = value.partition("@")
        value = (
            f"{local}{index}{at}{domain}"
            if at
            else f"{value}{index}"
            if " " not in value
            else f"{value} {index}"
        )
        while value in seen:
            value += "'"
        return value
    return max(seen) + 1


# ----------------------------------------------------------------------------------------------
# Keys, tables and the state.


def id_prefix(table: str) -> str:
    """The id prefix of a table: `customers` -> `cus`, `order_items` -> `oi`."""
    words = [w for w in table.lower().split("_") if w]
    return "".join(w[0] for w in words) if len(words) > 1 else (words[0][:3] if words else "row")


def format_id(prefix: str, number: int) -> str:
    """A string id: `format_id("cus", 7)` -> `cus_0007`."""
    return f"{prefix}_{number:04d}"


def parse_now(spec: dict[str, Any]) -> dt.datetime:
    """The environment's fixed clock (`data.now`, else `DEFAULT_NOW`) as an aware datetime."""
    text = (spec.get("data") or {}).get("now") or DEFAULT_NOW
    return dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)


def table_order(spec: dict[str, Any]) -> list[str]:
    """Tables sorted so that every table comes after the tables it references.

    Raises:
        `SpecError`: The references form a cycle (a table referencing itself is fine).
    """
    tables = spec["tables"]
    parents = {
        t: {c["references"] for c in s["columns"].values() if "references" in c and c["references"] != t}
        for t, s in tables.items()
    }
    order: list[str] = []
    while len(order) < len(tables):
        ready = [t for t in tables if t not in order and parents[t] <= set(order)]
        if not ready:
            cycle = sorted(t for t in tables if t not in order)
            raise SpecError(
                f"tables {', '.join(cycle)} reference each other in a cycle; cannot order or generate them"
            )
        order.extend(ready)
    return order


def implicit_references(spec: dict[str, Any]) -> dict[tuple[str, str], str]:
    """Columns that name another table's key without `references`: `{(table, column): referenced table}`.

    A non-key `<entity>_id` column (or `<entity>id`) of the type of the referenced primary key refers
    to the table whose primary key has that name, else to the table named `<entity>` (or its plural).
    """
    tables = spec["tables"]
    by_key = {s["primary_key"].lower(): t for t, s in tables.items()}
    by_name = {t.lower(): t for t in tables}
    out: dict[tuple[str, str], str] = {}
    for table, tspec in tables.items():
        for column, cspec in tspec["columns"].items():
            name = column.lower()
            if column == tspec["primary_key"] or "references" in cspec or "enum" in cspec:
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


def column_value(
    table: str, column: str, column_spec: dict[str, Any], rng: random.Random, now: dt.datetime
) -> Any:
    """One realistic value for a column, by its meaning (no uniqueness, reference or bound-argument handling)."""
    meaning = column_meaning(table, column, column_spec)
    fake = _faker(str(rng.getrandbits(64)))
    c = _Col(table, column, column_spec, meaning, fake.random, fake, now, texts=_texts(column_spec, ()))
    return _typed(column_spec, _maker(c)(0))


def _typed(column_spec: dict[str, Any], value: Any) -> Any:
    if column_spec["type"] == "integer" and isinstance(value, float):
        return int(value)
    if column_spec["type"] == "number" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def generate_state(
    spec: dict[str, Any], seed: int, rows: dict[str, int] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """Generate a deterministic initial state for a spec.

    Args:
        spec (`dict`): A valid spec.
        seed (`int`): The random seed. Each column draws from its own generator (seeded with the
            seed, its table and its name), so the order of the tables and columns, or another
            table's row count, leaves its values alone.
        rows (`dict[str, int]`, *optional*): Rows per table, each at most
            `spec.MAX_ROWS_PER_TABLE`; defaults to the spec's `data.rows`, then `DEFAULT_ROWS`.
            From `PROGRESS_MIN_ROWS` rows in all a progress bar shows on stderr; Ctrl-C stops
            the generation (`KeyboardInterrupt`).

    Returns:
        `dict[str, list[dict]]`: Rows per table, in reference order.

    Raises:
        `SpecError`: The spec is invalid, its references form a cycle, or the constraints cannot be
            met (a required reference to an empty table, more unique values than an enum has).
    """
    validate_spec(spec)
    return build_state(spec, seed, rows)


def build_state(
    spec: dict[str, Any], seed: int, rows: dict[str, int] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """`generate_state` for a spec that is known to be valid (only the `rows` override is checked)."""
    if rows:
        check_row_counts(rows, spec["tables"])
    counts = (
        {t: DEFAULT_ROWS for t in spec["tables"]} | (spec.get("data") or {}).get("rows", {}) | (rows or {})
    )
    now = parse_now(spec)
    bound = bound_schemas(spec)
    implicit = implicit_references(spec)
    keys = {t: _own_keys(t, s, counts[t]) for t, s in spec["tables"].items()}
    state: dict[str, list[dict[str, Any]]] = {}
    # Progress in values (rows x columns), advanced column by column.
    total = sum(counts[t] * len(s["columns"]) for t, s in spec["tables"].items())
    with tqdm(
        total=total,
        desc=f"generating {spec['name']}",
        unit="value",
        unit_scale=True,
        leave=False,
        disable=sum(counts[t] for t in spec["tables"]) < PROGRESS_MIN_ROWS,
    ) as progress:
        for table in table_order(spec):
            state[table] = _distinct_sets(
                spec["tables"][table],
                _build_table(spec, table, counts[table], seed, now, bound, implicit, keys, progress),
            )
    return state


def _distinct_sets(tspec: dict[str, Any], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows whose values of each table-level `unique` column set are distinct (later repeats dropped:
    a stock level per (warehouse, product) exists once)."""
    for group in tspec.get("unique", []):
        seen: set[tuple] = set()
        kept = []
        for row in rows:
            values = tuple(row.get(c) for c in group)
            if None in values or values not in seen:
                seen.add(values)
                kept.append(row)
        rows = kept
    return rows


def _own_keys(table: str, tspec: dict[str, Any], n: int) -> list[Any]:
    prefix = id_prefix(table)
    string = tspec["columns"][tspec["primary_key"]]["type"] == "string"
    return [format_id(prefix, i + 1) if string else i + 1 for i in range(n)]


def _group(column: str, vocabulary: frozenset[str], table: str) -> str:
    """Columns describing the same person (or place) of a row share a group: `customer_email` and
    `customer_name` -> `customer`; `email` and `name` -> `""` (the row's own); `player1` -> `player1`."""
    parts = [p for p in re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", column).lower().split("_") if p]
    rest = [p for p in parts if p not in vocabulary]
    group = "_".join(rest)
    return "" if group in ("", _singular(table.lower()), table.lower()) else group


_OWN_PERSON = frozenset(("person", "first_name", "last_name", "email", "username"))
_OWN_PLACE = frozenset(
    ("city", "state", "country", "country_code", "location", "address", "timezone", "coord")
)


def _null_share(tspec: dict[str, Any], column: str, cspec: dict[str, Any], meaning: str) -> float:
    if not is_nullable(tspec, column) or cspec.get("unique") or meaning in ("id", "enum"):
        return 0.0
    words = set(_words(column))
    optional = (
        meaning.startswith(("text:", "title:"))
        or meaning in ("phone", "middle_name", "url", "people")
        or bool(
            words
            & {
                "deleted",
                "cancelled",
                "canceled",
                "completed",
                "resolved",
                "closed",
                "shipped",
                "delivered",
                "end",
                "expires",
                "expiry",
                "last",
                "website",
                "fax",
                "bio",
                "notes",
                "note",
                "comment",
                "comments",
                "secondary",
                "alternate",
                "optional",
            }  # fmt: skip
        )
    )
    return NULL_SHARE if optional else NULL_SHARE / 4 if cspec.get("nullable") is True else 0.0


def _build_table(
    spec: dict[str, Any],
    table: str,
    n: int,
    seed: int,
    now: dt.datetime,
    bound: dict[tuple[str, str], list[dict[str, Any]]],
    implicit: dict[tuple[str, str], str],
    keys: dict[str, list[Any]],
    progress: Any,
) -> list[dict[str, Any]]:
    """The `n` rows of one table (the keys of every table are known: `keys`)."""
    tspec = spec["tables"][table]
    pk = tspec["primary_key"]
    own_keys = keys[table]
    columns: dict[str, list[Any]] = {}
    people: dict[str, list[tuple[str, str]]] = {}
    places: dict[str, list[_Place]] = {}
    for column, cspec in tspec["columns"].items():
        where = f"cannot generate {n} rows of {table}.{column}"
        ref = cspec.get("references") or implicit.get((table, column))
        fake = _faker(f"{seed}:{table}:{column}")
        rng = fake.random
        if column == pk:
            columns[column] = own_keys
        elif ref == table:  # a tree: each row points to an earlier one (the first to none, or itself)
            first = None if is_nullable(tspec, column) else own_keys[0] if n else None
            columns[column] = [own_keys[rng.randrange(i)] if i else first for i in range(n)]
        elif ref is not None and (
            cspec.get("references") or (keys[ref] and (not cspec.get("unique") or len(keys[ref]) >= n))
        ):
            columns[column] = _reference_column(tspec, column, cspec, keys[ref], n, rng, where)
        else:
            columns[column] = _value_column(
                spec, table, column, cspec, n, seed, now, bound, rng, fake, people, places
            )
        progress.update(n)
    _order_pairs(tspec, columns, n)
    order = list(tspec["columns"])
    return [dict(zip(order, vals, strict=True)) for vals in zip(*(columns[c] for c in order), strict=True)]


def _reference_column(
    tspec: dict[str, Any],
    column: str,
    cspec: dict[str, Any],
    keys: list[Any],
    n: int,
    rng: random.Random,
    where: str,
) -> list[Any]:
    ref = cspec.get("references")
    if not keys and n and not is_nullable(tspec, column):
        raise SpecError(f"{where}: it references {ref}, which has no rows")
    if cspec.get("unique"):
        if len(keys) < n and not is_nullable(tspec, column):
            raise SpecError(f"{where}: unique references need {n} rows in {ref}, it has {len(keys)}")
        picked: list[Any] = rng.sample(keys, min(n, len(keys)))
        return picked + [None] * (n - len(picked))
    return [rng.choice(keys) if keys else None for _ in range(n)]


def _value_column(
    spec: dict[str, Any],
    table: str,
    column: str,
    cspec: dict[str, Any],
    n: int,
    seed: int,
    now: dt.datetime,
    bound: dict[tuple[str, str], list[dict[str, Any]]],
    rng: random.Random,
    fake: Any,
    people: dict[str, list[tuple[str, str]]],
    places: dict[str, list[_Place]],
) -> list[Any]:
    tspec = spec["tables"][table]
    where = f"cannot generate {n} rows of {table}.{column}"
    if cspec.get("unique") and "enum" in cspec and len(cspec["enum"]) < n:
        raise SpecError(f"{where}: it is unique but its enum has only {len(cspec['enum'])} values")
    args = bound.get((table, column), [])
    meaning = column_meaning(table, column, cspec, args)
    texts = _texts(cspec, args)
    if meaning == "json" and any(isinstance(a, dict) and a.get("type") == "string" for a in args):
        meaning = f"json:{_string_meaning(table, column, texts, ())}"
    c = _Col(table, column, cspec, meaning, rng, fake, now, texts=texts)
    if meaning != "enum" and cspec["type"] in ("string", "json"):
        c.named = named_values(cspec, args)
    if c.kind == "num":
        c.bounds = _bounds(args, texts)
    if meaning in _OWN_PERSON:
        group = _group(column, _PERSON_TOKENS, table)
        if group not in people:
            prng = random.Random(f"{seed}:{table}:@person:{group}")
            people[group] = [(_first(prng), _last(prng)) for _ in range(n)]
        c.people = people[group]
    if meaning in _OWN_PLACE or meaning in ("num:lat", "num:lon"):
        group = _group(column, _PLACE_TOKENS, table)
        if group not in places:
            prng = random.Random(f"{seed}:{table}:@place:{group}")
            places[group] = [prng.choice(_PLACES) for _ in range(n)]
        c.places = places[group]
    make = _maker(c)
    accepts = [_acceptor(s) for s in args]
    if args and meaning != "enum":
        # Arguments bound to the column list the values they take: draw from those all of them accept.
        enums = [
            a["enum"] for a in args if isinstance(a, dict) and isinstance(a.get("enum"), list) and a["enum"]
        ]
        first = [v for v in (enums[0] if enums else ()) if value_problem(cspec, v) is None]
        choices = [v for v in first if all(a(v) for a in accepts)] or first  # where they disagree, reads win
        if choices:
            make = lambda i: rng.choice(choices)  # noqa: E731
    null_share = _null_share(tspec, column, cspec, meaning)
    unique = bool(cspec.get("unique"))
    values: list[Any] = []
    seen: set[Any] = set()
    for i in range(n):
        if null_share and rng.random() < null_share:
            values.append(None)
            continue
        value = _typed(cspec, make(i))
        if args and meaning != "enum":
            value = _fit_bound(value, cspec, args, rng, now, accepts)
        if unique:
            if "enum" in cspec and value in seen:
                value = rng.choice([v for v in cspec["enum"] if v not in seen])
            for _ in range(10):
                if value not in seen or "enum" in cspec:
                    break
                candidate = _typed(cspec, make(i))
                if all(a(candidate) for a in accepts):
                    value = candidate
            value = _make_unique(value, i + 1, seen)
            seen.add(value)
        values.append(value)
    return values


def _bounds(arguments: Sequence[Any], texts: str) -> tuple[float | None, float | None]:
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


_PAIRS = (("start", "end"), ("created", "updated"), ("check_in", "check_out"), ("checkin", "checkout"),
          ("departure", "return"), ("departure", "arrival"), ("from", "to"), ("begin", "finish"),
          ("opened", "closed"), ("start", "finish"), ("issued", "expires"), ("issue", "expiry"))  # fmt: skip


def _order_pairs(tspec: dict[str, Any], columns: dict[str, list[Any]], n: int) -> None:
    """End dates after start dates: swap a row's `start_date`/`end_date` (`created_at`/`updated_at`,
    `check_in`/`check_out`, ...) when they are ISO strings in the wrong order."""
    names = list(tspec["columns"])
    for a in names:
        for start, end in _PAIRS:
            if start not in a.lower():
                continue
            b = next((x for x in names if x.lower() == a.lower().replace(start, end, 1)), None)
            if (
                b is None
                or b == a
                or tspec["columns"][a]["type"] != "string"
                or tspec["columns"][b]["type"] != "string"
            ):
                continue
            first, second = columns[a], columns[b]
            for i in range(n):
                x, y = first[i], second[i]
                if (
                    isinstance(x, str) and isinstance(y, str) and x > y and len(x) == len(y)
                    and re.match(r"^\d{4}-\d{2}-\d{2}", x) and re.match(r"^\d{4}-\d{2}-\d{2}", y)
                ):  # fmt: skip
                    first[i], second[i] = y, x
