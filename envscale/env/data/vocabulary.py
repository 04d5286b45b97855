"""The vocabularies of generated values: places, names, lexicons, titles and templates, and Faker's data.

Pure data and two caches, no decisions: what a column means is `meaning`'s, drawing a value is
`values`'s.

- `PLACES`: real cities with their region, country, ISO code, IANA time zone and coordinates (the
  places of a row stay coherent);
- `LEXICONS`: small vocabularies by meaning (`lex:<name>`: units, genres, sports, platforms, ...),
  compared case-, accent- and separator-insensitively (`norm`);
- `TITLES`, brands, mascots, code words, neighborhoods: material for named things and titles;
- `STATUSES` (by context), `PROSE`, `ROW_TEXTS` (a row's notes and prose by its kind), `QUERY_WORDS`, airports, currencies,
  languages and locales: what the value makers pick from;
- `faker_for(key)`: the thread's `Faker("en_US")`, reseeded with `key` (Faker is imported on first use);
- `word_data()`: Faker's names, words, countries, currencies, colors, jobs, ... read once per process,
  with the sets the filler checks need.

Example:

```python
>>> from envscale.env.data.vocabulary import LEXICONS, word_data, norm
>>> LEXICONS["genre"][:3]
('rock', 'pop', 'jazz')
>>> norm("Hip-Hop") in word_data().lexicons["genre"]
True
```
"""

from __future__ import annotations

import dataclasses
import functools
import re
import threading
import unicodedata
from collections.abc import Iterable
from typing import Any

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
class PlaceRow:
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


PLACES = tuple(
    PlaceRow(*p[:6], float(p[6]), float(p[7])) for p in (line.split("|") for line in _PLACE_ROWS.splitlines())
)
# Names of the old built-in generator: not in Faker's en_US lists, kept so that they still count as names.
INTL_FIRST = "Ann Ben Chloe Dev Eva Femi Gus Hana Ivan Jia Kofi Lena Maya Noor Omar Priya Quinn Rosa Sam Tariq Uma Vik Wen Yara Zoe".split()
INTL_LAST = "Lee Garcia Smith Okafor Chen Novak Patel Kim Rossi Silva Nguyen Haddad Kowalski Tanaka Brown Costa Dubois Khan Larsen Moreau".split()
# The stock filler of the old generator ("compact-jacket", "Smart kettle"): generic words outside product tables.
STOCK = frozenset(
    "compact wireless organic classic deluxe smart portable vintage ergonomic eco "
    "lamp backpack kettle headphones notebook chair blender jacket monitor bottle".split()
)


def _lex(text: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in text.split("|") if v.strip())


# Small vocabularies, by meaning (`lex:<name>`). Values are compared case- and separator-insensitively.
LEXICONS: dict[str, tuple[str, ...]] = {
    name: _lex(text)
    for name, text in {
        # what an assistant keeps about its user, key by key (MemGPT's key-value memories)
        "memory_key": "favorite_color|home_city|preferred_language|pet_name|coffee_order|birthday|work_hours|"
        "partner_name|allergies|gym_days|favorite_cuisine|nickname|shoe_size|commute|favorite_band",
        "memory_value": "blue|Lisbon|Spanish|Biscuit|oat flat white|March 14|9 to 5|Sam|peanuts|Monday and Thursday|"
        "Thai|Jo|42|by bike|Radiohead",
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
        "pet_species": "dog|cat|rabbit|hamster|parrot|guinea pig|bearded dragon",
        "breed": "Labrador Retriever|German Shepherd|Golden Retriever|French Bulldog|Beagle|Poodle|Dachshund|"
        "Border Collie|Siamese|Maine Coon|Persian|Bengal|Ragdoll|mixed breed",
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
        "severity": "low|medium|high|critical",
        "contact_label": "mobile|work|home|personal|office|main",
        "address_label": "home|work|billing|shipping",
        "log_severity": "Verbose|Debug|Information|Warning|Error|Fatal",
        "log_category": "Database|HTTP|Security|Authentication|Payments|Email|Cache|Background jobs|API|Frontend",
        "webhook_event": "order.created|order.updated|invoice.paid|customer.created|payment.failed|ticket.closed|"
        "user.deleted|feedback.created|subscription.cancelled|message.received",
        "flag": "true|false",
        "environment": "production|staging|development|testing|sandbox",
        "protocol": "HTTPS|SFTP|FTPS|FTP|SSH|WebSocket",
        "sound": "default|chime|bell|ping|alert|siren|none",
        "http_method": "GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS",
        "encoding": "utf-8|utf-16|ascii|latin-1|iso-8859-1|base64|gzip|cp1252",
        "format": "json|csv|xml|yaml|pdf|html|txt|png|jpeg|mp4|mp3|docx|xlsx|markdown|parquet|IMAX|2D|3D",
        "date_format": "YYYY-MM-DD|MM/DD/YYYY|DD/MM/YYYY|DD-MM-YYYY|MM-DD-YYYY|YYYY/MM/DD|ISO 8601",
        "currency_format": "$#,##0.00|#,##0.00 USD|€#,##0.00|#.##0,00 €|£#,##0.00|¥#,##0|#,##0.00|"
        "$0.00|CHF #,##0.00|#,##0.00 ¤",
        "os": "Windows 11|Windows 10|macOS|Ubuntu|Debian|Fedora|iOS|Android|Linux|ChromeOS",
        "browser": "Chrome|Firefox|Safari|Edge|Opera|Brave",
        "payment_method": "credit card|debit card|paypal|bank transfer|apple pay|google pay|cash|"
        "gift card|invoice|wire transfer",
        "card_suit": "hearts|diamonds|clubs|spades",
        # the second line of an address: the unit in the building the first line names
        "address_unit": "Apt 4B|Suite 210|Floor 3|Unit 12|Apt 7|Suite 500|Building C|Room 101|Apt 12A|Floor 2|"
        "Unit 5|Suite 1200|Apt 3",
        "card_rank": "Ace|King|Queen|Jack|Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten|2|3|4|5|6|7|8|9|10",
        "card": "Ace of Spades|King of Hearts|Queen of Diamonds|Jack of Clubs|Ten of Hearts|Seven of Spades|"
        "Two of Clubs|Ace of Hearts|Nine of Diamonds",
        "fuel": "gasoline|diesel|electric|hybrid|petrol|hydrogen|natural gas|biodiesel|ethanol",
        "room_type": "single|double|twin|queen|king|suite|deluxe|studio|family|standard|executive suite",
        # kinds of a thing, for `<thing>_type` (an address type is "billing", never a street)
        "address_type": "home|work|billing|shipping|mailing",
        "email_type": "work|personal|other",
        "phone_type": "mobile|home|work|fax|main",
        "card_type": "credit|debit|prepaid|gift",
        "user_type": "admin|member|guest|owner|viewer",
        "account_type": "checking|savings|credit|business|personal",
        "contact_type": "customer|supplier|partner|lead|employee",
        "location_type": "office|warehouse|store|headquarters|remote",
        "link_type": "website|documentation|video|download|social",
        "file_type": "pdf|image|spreadsheet|document|archive|video",
        "token_type": "Bearer|MAC",
        "grant_type": "authorization_code|client_credentials|refresh_token|password",
        "auth_type": "basic|oauth2|api_key|bearer|none",
        "body_type": "text|html",
        "document_type": "invoice|contract|receipt|report|passport|id card",
        "transaction_type": "purchase|refund|transfer|deposit|withdrawal|fee",
        "relationship_type": "parent|child|related|duplicate|blocks",
        "vehicle_type": "car|van|truck|motorcycle|bus",
        "budget_type": "fixed|hourly|none",
        "payment_type": "card|bank transfer|cash|paypal|invoice",
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
        "item_condition": "new|used|refurbished|like new|good|fair|poor",
        "weather_condition": "sunny|cloudy|partly cloudy|rain|snow|thunderstorm|fog|windy|clear|overcast|drizzle",
        "medical_condition": "diabetes|hypertension|asthma|migraine|arthritis|allergy",
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
        "pronouns": "she/her|he/him|they/them|she/they|he/they",
        "salutation": "Mr|Ms|Mrs|Mx|Dr|Prof",
        "marital": "single|married|divorced|widowed|separated|domestic partnership",
        "ticket_resolution": "Reset the password and sent a new sign-in link.|Refunded the duplicate charge.|"
        "Replaced the damaged item at no cost.|Cleared the browser cache; the page loads again.|"
        "Updated the billing address on the account.|Reissued the invoice with the right VAT number.|"
        "Escalated to the carrier; the parcel was redelivered.|Restored the deleted project from backup.|"
        "Fixed in release 2.4.1.|Duplicate of an earlier ticket; closed.|Customer confirmed it works now.|"
        "Could not reproduce; closed after no reply.",
        "order_source": "web|mobile app|phone|in-store|marketplace|email|social media|partner",
        "product_unit": "piece|box|pack|kg|g|liter|ml|meter|pair|set|dozen|bottle|bag|roll|hour",
        "direction": "north|south|east|west|northeast|northwest|southeast|southwest|inbound|outbound|"
        "ascending|descending|asc|desc|left|right|up|down",
        "region": "North America|South America|Europe|Asia|Africa|Oceania|Middle East|Asia Pacific|"
        "Latin America|EMEA|APAC|Northeast|Midwest|South|West|Pacific Northwest|global|US|EU|UK",
        "continent": "Africa|Antarctica|Asia|Australia|Europe|North America|South America|Oceania",
        "car_make": "Toyota|Honda|Ford|Chevrolet|Tesla|BMW|Mercedes-Benz|Audi|Volkswagen|Hyundai|Kia|"
        "Nissan|Subaru|Mazda|Volvo|Porsche|Jeep|Lexus",
        "car_model": "Camry|Civic|Corolla|Model 3|Model Y|F-150|Mustang|Accord|RAV4|CR-V|Golf|3 Series|"
        "A4|Outback|CX-5|Wrangler|Prius|Leaf|Ioniq 5",
        "device_model": "Pulsar Plus|JuiceBox 40|Home Flex|Terra 54|Wallbox Copper SB|ThinkPad X1 Carbon|"
        "Galaxy S24|iPhone 15|Pixel 8|Echo Dot|Nest Learning Thermostat|Roomba j7|LaserJet Pro M404|EX-2200|"
        "AX-3000",
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
        "character_class": "Warrior|Mage|Rogue|Ranger|Cleric|Paladin|Bard|Druid|Monk|Warlock",
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
        # a service booked at a time (an appointment's), and one added to a stay: never Gmail or Disney+
        "appointment_service": "Haircut|Massage (60 min)|Dental cleaning|Physio session|Consultation|"
        "Eye exam|Manicure|Personal training|Tax advice|Vaccination",
        "stay_service": "Breakfast|Airport transfer|Late checkout|Spa access|Parking|Extra bed|Room upgrade",
        # a service of a business or a system; a streaming brand only for what someone subscribes to (seed 93's
        # readers: an appointment service and a messaging service named "HBO Max")
        "service": "payments|auth|billing|search|notifications|email delivery|reporting|file storage|"
        "order processing|Customer Support|Onboarding|Consulting|Maintenance|Delivery",
        "streaming_service": "Netflix|Spotify|Hulu|Disney+|Amazon Prime Video|YouTube|Apple Music|HBO Max|"
        "Dropbox|Google Drive|Slack|GitHub",
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
        "ingredient": "flour|sugar|eggs|butter|milk|salt|black pepper|olive oil|garlic|onion|tomatoes|basil|"
        "chicken breast|rice|pasta|parmesan|mozzarella|lemon juice|honey|baking powder|vanilla extract|"
        "ground beef|carrots|potatoes|spinach|cilantro|lime|soy sauce|ginger|cumin|paprika|heavy cream|"
        "yeast|chickpeas|coconut milk|avocado|bell pepper|mushrooms",
        "link_rel": "self|next|prev|first|last|related|alternate|edit|collection|item|canonical|parent",
        "visibility": "public|private|internal|unlisted|restricted|hidden|visible|members only|everyone",
        "emoji": "+1|-1|laugh|hooray|confused|heart|rocket|eyes|:tada:|:thumbsup:|:wave:|:smile:|:fire:",
        "file_extension": "pdf|csv|jpg|png|txt|docx|xlsx|json|zip|mp4|mp3|gif|html|xml|yaml",
        "aspect_ratio": "16:9|4:3|1:1|21:9|9:16|3:2|2:1|5:4",
        "zone": "us-east-1a|us-east-1b|us-west-2a|eu-west-1c|europe-west1-b|us-central1-a|asia-east1-a|"
        "par1|ams1|fra1|nyc3|sfo3|zone-a|zone-b",
        "ethnicity": "Hispanic or Latino|Not Hispanic or Latino|Asian|Black or African American|White|"
        "American Indian or Alaska Native|Native Hawaiian or Other Pacific Islander|Two or more races|"
        "Prefer not to say",
        "outcome": "success|failure|cancelled|neutral|skipped|timed_out|action_required|passed|failed",
        "type": "standard|premium|basic|custom|internal|external|primary|secondary|personal|business|"
        "default|system|manual|automatic",
        "music_key": "C major|G major|D major|A major|E major|F major|B flat major|E flat major|A minor|"
        "E minor|D minor|C minor|G minor|F sharp minor|B minor",
        "amenity": "free wifi|pool|parking|gym|breakfast included|air conditioning|spa|pet friendly|"
        "airport shuttle|restaurant|bar|room service|laundry|kitchen|balcony|ocean view|24-hour front desk|"
        "wheelchair accessible|ev charging|business center",
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
MASCOTS = _lex(
    "Falcons|Tigers|Wolves|Hawks|Bears|Lions|Eagles|Sharks|Rangers|Rovers|United|Knights|Titans|"
    "Panthers|Comets|Storm|Thunder|Giants|Pirates|Vikings|Royals|Mariners|Warriors|City FC|Athletic"
)
HOTEL_BRANDS = _lex(
    "Hilton|Marriott|Hyatt Regency|Four Seasons|Sheraton|Westin|Holiday Inn|Ritz-Carlton|Radisson|"
    "InterContinental|Best Western|Fairmont|Kimpton|Omni|Renaissance"
)
RESTAURANT_KINDS = _lex(
    "Bistro|Kitchen|Grill|Trattoria|Diner|Cantina|Brasserie|Noodle House|Sushi Bar|Taqueria|"
    "Steakhouse|Cafe|Tavern|Pizzeria|Ramen Bar|Smokehouse"
)
VENUE_KINDS = _lex("Theater|Arena|Hall|Center|Pavilion|Stadium|Amphitheater|Ballroom|Playhouse|Music Hall")
CODEWORDS = _lex(
    "Orion|Atlas|Nova|Apollo|Zephyr|Cobalt|Falcon|Phoenix|Aurora|Vega|Sierra|Titan|Helios|Juniper|"
    "Kestrel|Lumen|Polaris|Quartz|Meridian|Nimbus|Cascade|Horizon|Sequoia|Beacon|Everest|Argon"
)
PRODUCT_BRANDS = _lex(
    "Lumina|Arcadia|Vertex|Nordic|Brightline|Kestrel|Halcyon|Trailhead|Northwind|Acme|Evergreen|Solace|Crestline"
)
PRODUCT_ADJ = _lex(
    "Wireless|Stainless Steel|Organic Cotton|Ergonomic|Compact|Portable|Smart|Waterproof|Insulated|"
    "Bamboo|Leather|Noise-Cancelling|Cordless|Ceramic|Lightweight|Adjustable|Rechargeable|Vintage"
)
PRODUCT_NOUN = _lex(
    "Headphones|Water Bottle|Desk Chair|Backpack|Coffee Grinder|Yoga Mat|Desk Lamp|Running Shoes|Blender|"
    "Notebook|Rain Jacket|Monitor|Keyboard|Kettle|Tent|Skillet|Throw Blanket|Bluetooth Speaker|Phone Case|"
    "Air Fryer|Sunglasses|Wall Clock|Travel Mug|Duffel Bag|Office Chair|Electric Toothbrush"
)
TITLES = {
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
    # invented titles: the artists are invented too, and "Rumours" by Lawrence Dubois reads as a wrong answer (seed 88's
    # and 89's readers)
    "song": _lex(
        "Paper Lanterns|Midnight on Harbor Street|Slow Burn Summer|Glass Horizon|Neon Orchard|Quiet Engines|"
        "Salt and Static|Golden Hour Drive|Borrowed Skies|Velvet Signal|Northbound|Silver Lining Parade|"
        "Echoes in the Attic|Wildflower Radio|City of Small Lights|Tidal Hearts|Open Road Lullaby|"
        "Copper Moon|Second Wind|Blue Porch Song|Late Train Home|Static Bloom"
    ),
    "album": _lex(
        "Weather Stations|The Long Way Round|Harbor Lights|Low Tide Sessions|Northern Static|Paper Cities|"
        "Sundial|Kitchen Radio|The Quiet Year|Night Ferry|Open Windows|Painted Roads|Small Hours|"
        "Coastline Letters|Field Notes|Glasshouse"
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
NEIGHBORHOODS = _lex(
    "Downtown|Midtown|Uptown|Riverside|Westside|Eastside|Old Town|Harbor District|Financial District|"
    "Chinatown|Little Italy|SoHo|Greenwich Village|Mission District|Capitol Hill|Back Bay|Hyde Park|"
    "Shoreditch|Montmartre|Kreuzberg|Shibuya|Gangnam|Brooklyn Heights|Silver Lake|Lakeview"
)
QUERY_WORDS = _lex(
    "wireless headphones|italian restaurants|cheap flights to Paris|jazz concerts this weekend|"
    "running shoes size 10|python tutorial|weather in Seattle|best pizza near me|hotels in Tokyo|"
    "machine learning jobs|vegan recipes|used Toyota Camry|noise cancelling headphones|coffee shops open now|"
    "Taylor Swift tickets|climate change news|NBA scores|apartment for rent Boston|yoga classes|"
    "track:Shape of You artist:Ed Sheeran|stock price AAPL|budget laptop|museum opening hours|"
    "electric cars 2024|gluten free bakery"
)

_REPLIES = (
    "Looks good to me, thanks!",
    "Agreed, let's go with this.",
    "Can we move this to next week?",
    "Nice find, adding it to my list.",
    "I had the same question; following.",
    "Thanks, {first}, this helps.",
    "Could you add a bit more detail?",
    "Done on my side.",
)
"""What a comment, a reply or a reaction says."""

# What a row's free text says, by the kind of thing the row is (words of its table's name): its notes (`notes`,
# `instructions`, `comments`) and its prose (`description`, `details`). A recipe's instructions are cooking steps and
# an employee's description is a line about the employee, never a stock sentence about an order or a lunch. Kinds
# whose text may be about anything (messages, posts, emails) keep `PROSE`. Slots as in `PROSE`.
ROW_TEXTS: tuple[tuple[frozenset[str], tuple[str, ...], tuple[str, ...]], ...] = (
    (  # a to-do says what to do (seed 85: a todo's content "Shared with the Finance team; questions to Brian.")
        frozenset("todo todos task tasks chore chores reminder reminders checklist checklists".split()),
        (
            "Call the bank about the mortgage rate.",
            "Send the {doc} to {first} before {weekday}.",
            "Book flights for the {city} trip.",
            "Renew the car insurance.",
            "Pick up groceries on the way home.",
            "Schedule a dentist appointment.",
            "Review {first}'s notes before the meeting.",
        ),
        (
            "Send the {doc} to {first} {last} by {weekday}.",
            "Book the venue in {city} for the {dept} offsite.",
            "Follow up with {first} about the {doc}.",
            "Prepare the slides for the {dept} review in {month}.",
        ),
    ),
    (  # a poll or a survey asks (seed 86: poll and survey texts "Kept up to date by the ... team")
        frozenset(
            "poll polls survey surveys question questions questionnaire questionnaires quiz quizzes".split()
        ),
        (
            "How satisfied were you with today's session?",
            "Which topic should we cover next?",
            "Would you recommend this session to a colleague?",
            "How would you rate the speaker?",
        ),
        (
            "What should we improve before the {month} session?",
            "Which day suits you best for the follow-up?",
            "How useful was the {doc} you received?",
            "Did the session answer your questions?",
        ),
    ),
    (
        frozenset(
            "order orders purchase purchases cart carts shipment shipments delivery deliveries package "
            "packages parcel parcels fulfillment fulfillments fulfilment return returns".split()
        ),
        (
            "Customer asked for gift wrapping.",
            "Leave the package at the front door.",
            "Please call before delivery.",
            "Delivery window moved to next week.",
            "Item was out of stock, substituted with a similar model.",
            "Requested a refund for the damaged item.",
            "Needs approval from the finance team before shipping.",
        ),
        (
            "{n} items for {first} {last}, shipping to {city}.",
            "Standard shipping to {city}; gift receipt included.",
            "Reorder of the {product} for the {city} office.",
        ),
    ),
    (
        frozenset(
            "customer customers client clients lead leads prospect prospects subscriber subscribers "
            "buyer buyers guest guests shopper shoppers patron patrons donor donors".split()
        ),
        (
            "Prefers contact by phone in the morning.",
            "VIP: expedite processing.",
            "Asked about bulk pricing for 50 units.",
            "Called twice, no answer; will follow up by email.",
            "Address confirmed by phone.",
            "Prefers e-mail over phone calls.",
        ),
        (
            "Customer since {year}; usually orders for the {city} office.",
            "Met {first} at the {city} trade fair in {month}.",
            "Buys for a small {dept} team; pays by invoice.",
        ),
    ),
    (
        frozenset(
            "ticket tickets case cases issue issues incident incidents complaint complaints bug bugs "
            "escalation escalations".split()
        ),
        (
            "Escalated to the second-line support team.",
            "Duplicate of an earlier request; merged.",
            "Waiting for the customer to reply.",
            "Reproduced on the customer's account; fix scheduled for {weekday}.",
            "Customer asked for a call back before {time}.",
        ),
        (
            "{first} reports that the login page has not loaded since {weekday}.",
            "Opened by {first} {last}: the export to {doc} fails with an error.",
            "{first} cannot update the billing address; steps to reproduce are attached.",
        ),
    ),
    (
        frozenset(
            "payment payments invoice invoices bill bills charge charges refund refunds transaction "
            "transactions expense expenses payout payouts transfer transfers credit credits debit "
            "debits receipt receipts".split()
        ),
        (
            "Awaiting payment confirmation from the bank.",
            "Needs approval from the finance team.",
            "Paid by bank transfer; reference {ref}.",
            "Split across two cards at the customer's request.",
            "Reimbursable: client dinner in {city}.",
        ),
        (
            "Payment for {ref}, due by the end of {month}.",
            "Monthly charge for the {dept} team's tools.",
            "Refund of a duplicate charge from {weekday}.",
        ),
    ),
    (
        frozenset(
            "booking bookings reservation reservations appointment appointments visit visits stay stays "
            "trip trips rental rentals".split()
        ),
        (
            "Allergic to peanuts; noted for the kitchen.",
            "Late arrival, around 22:00.",
            "Window seat requested.",
            "Celebrating a birthday; cake at 20:00.",
            "Wheelchair access needed.",
            "First visit; please send directions.",
        ),
        (
            "Booked by {first} {last} for two people.",
            "Follow-up visit after the appointment in {month}.",
            "Business trip to {city} for the {dept} team.",
        ),
    ),
    (
        frozenset(
            "recipe recipes dish dishes meal meals food foods menu menus cocktail cocktails drink "
            "drinks".split()
        ),
        (
            "Preheat the oven to 200°C and roast for 25 minutes.",
            "Simmer for 20 minutes, stirring now and then.",
            "Whisk the eggs and sugar, then fold in the flour and bake for 30 minutes.",
            "Marinate overnight, then grill for 6 minutes a side.",
            "Toss everything together and serve chilled.",
            "Shake with ice for 15 seconds and strain into a chilled glass.",
        ),
        (
            "A {cuisine} classic for four people.",
            "Quick weeknight {cuisine} dish, ready in 30 minutes.",
            "A family favourite from {city}, best made the day before.",
        ),
    ),
    (
        frozenset("leave leaves absence absences timeoff vacation vacations holiday holidays pto".split()),
        (
            "Family trip; handover to {first} agreed.",
            "Doctor's appointment in the morning.",
            "Covering colleague: {first} {last}.",
            "Approved by the manager on {weekday}.",
        ),
        (
            "Annual leave for a trip to {city}.",
            "Half day for a family event.",
            "Parental leave, agreed in {month}.",
        ),
    ),
    (
        frozenset(
            "employee employees staff worker workers user users member members person people persons "
            "candidate candidates applicant applicants teammate teammates agent agents student students "
            "patient patients contact contacts".split()
        ),
        (
            "Works from the {city} office on Tuesdays.",
            "On leave until the end of {month}.",
            "Completed the security training in {month}.",
            "Prefers to be reached on chat.",
            "Mentor: {first} {last}.",
        ),
        (
            "{job} in the {dept} team, based in {city}.",
            "Joined the {dept} team in {month}, coming from {company}.",
            "Based in {city}; speaks {language}.",
        ),
    ),
    (
        frozenset(
            "event events meeting meetings session sessions webinar webinars class classes course courses "
            "workshop workshops".split()
        ),
        (
            "Bring the {doc}; we start at {time}.",
            "Room changed to the second floor.",
            "Recording will be shared after.",
            "Catering for {n} people ordered.",
        ),
        (
            "Agenda: updates from the {dept} team, then questions.",
            "Hosted by {first} {last} in {city}.",
            "Quarterly review with the {dept} team.",
        ),
    ),
    (
        frozenset(
            "project projects task tasks milestone milestones goal goals campaign campaigns job jobs "
            "release releases sprint sprints deal deals opportunity opportunities".split()
        ),
        (
            "Blocked until the {doc} is signed off.",
            "{first} owns the next step; check in on {weekday}.",
            "Moved to next sprint after the review.",
            "Budget approved in {month}.",
        ),
        (
            "Owned by {first} {last} in the {dept} team; next review on {weekday}.",
            "Scope agreed with {first} in {month}.",
            "For the {dept} team's launch in {month}.",
        ),
    ),
    (
        frozenset(
            "product products item items listing listings article articles variant variants sku skus "
            "good goods".split()
        ),
        (
            "Fragile: ship with extra padding.",
            "Restock expected next week.",
            "Bestseller in the {city} store.",
            "Do not discount below list price.",
        ),
        (
            "{product} with a two-year warranty. Ships within 3 business days.",
            "{product}, sold in packs of six.",
            "Our bestselling {product}, made in {country}.",
        ),
    ),
    (
        frozenset(
            "interaction interactions call calls touchpoint touchpoints engagement engagements followup "
            "followups".split()
        ),
        (
            "Called the customer; they asked about the delivery date.",
            "Sent the quote by e-mail.",
            "Left a voicemail about the renewal.",
            "Customer confirmed the new address by phone.",
            "Spoke to {first} {last}; will send the {doc} by {weekday}.",
        ),
        (
            "Call with {first} {last} about the {doc}.",
            "E-mail to {first} about the renewal in {month}.",
            "Meeting with the {dept} team of {company} in {city}.",
        ),
    ),
    (
        frozenset(
            "comment comments reply replies response responses answer answers reaction reactions".split()
        ),
        _REPLIES,  # a comment's note and its text are one thing: a reply
        _REPLIES,
    ),
)
"""(kinds, notes, prose) by the words of a row's table; the first kind that matches writes the row's text."""
ROW_TEXTS_ANY = (
    (
        "Checked by {first} {last} on {weekday}.", "Follow up with {first} next {weekday}.",
        "Waiting for an answer from the {dept} team.", "Updated after the review in {month}.",
        "Do not delete: still used by the {dept} team.", "Migrated from the old system in {month}.",
        "Ask {first} before changing this.", "Temporary; remove after {month}.",
    ),
    (
        "Set up by {first} {last} of the {dept} team in {month}.", "Kept up to date by the {dept} team.",
        "Reviewed by {first} {last} in {month}.", "Shared with the {dept} team; questions to {first}.",
        "Internal use only.", "Used for the {city} office.", "Created for the {month} launch.",
        "Replaces the one we used until {month}.", "Owned by {first} {last}.", "For testing; not customer facing.",
        "Shared with {company}.", "Main one for the {dept} team.",
    ),
)  # fmt: skip
"""(notes, prose) of a row whose kind is not among `ROW_TEXTS`: a note on where it stands, a line on who set it up
and keeps it; never another row's story."""
FREE_TEXT_KINDS = frozenset(
    "message messages email emails mail mails post posts tweet tweets chat chats "
    "thread threads conversation conversations note notes status statuses update updates story stories "
    "journal journals entry entries document documents page pages memo memos text texts sms".split()
)
"""Rows whose text may be about anything (a message, a post, a journal entry): `PROSE` fits them."""

# Account recovery questions, with the meaning of their answers (`credentials` objects).
RECOVERY_QUESTIONS = (
    ("What was the name of your first pet?", "first_name"),
    ("In what city were you born?", "city"),
    ("What is your mother's maiden name?", "last_name"),
    ("What was the name of your elementary school?", "named:school"),
    ("What was the make of your first car?", "lex:car_make"),
)
# Errors and warnings of an API object (`errors`, `warnings`): (code, message).
ERRORS = (
    ("invalid_date", "The date must be in the format YYYY-MM-DD."),
    ("missing_field", "The field email is required."),
    ("rate_limited", "Too many requests; retry after 60 seconds."),
    ("not_found", "The requested record was not found."),
    ("timeout", "The upstream service did not respond in time."),
    ("duplicate", "A record with the same reference already exists."),
    ("insufficient_funds", "The account balance is too low for this payment."),
    ("validation_error", "The quantity must be at least 1."),
)

# ----------------------------------------------------------------------------------------------
# Statuses by context, templates of text, and codes the value makers pick from.

STATUSES = {
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

PROSE = _lex(
    "Hi {first}, just confirming our meeting on {weekday} at {time}.|"
    "Following up on {topic}, as discussed with {first} on {weekday}.|"
    "The {product} arrived on time and works as described.|"
    "Please send the updated {doc} to {first} {last} before {weekday}.|"
    "Quarterly update: the {dept} team closed {n} deals in {month}.|"
    "Reminder: the {event} starts at {time} on {weekday}.|"
    "The {cuisine} lunch for the {dept} team is booked in {city} on {weekday}.|"
    "{first} asked whether the {product} ships to {country}.|"
    "Meeting notes: the {project} launch moves to {month}; {first} owns the rollout.|"
    "Our office in {city} will be closed on {weekday} for maintenance.|"
    "The welcome pack for the {city} office is now in {language} too.|"
    "The {city} site visit is confirmed for {weekday} at {time}.|"
    "{first} reviewed the {doc} from {company}; two open questions remain.|"
    "{first} {last} joined the {dept} team in {month} after {n} years at {company}.|"
    "Invoice {ref} from {company} is due on {weekday}.|"
    "Flight to {city} delayed by {n} minutes because of the weather.|"
    "Customer in {city} reports the {product} stopped charging after {n} days.|"
    "Great talk by {first} {last} on {topic} at the {city} meetup.|"
    "Booked a table for {n} at {time} on {weekday}; {first} will confirm.|"
    "Shared the {doc} with {company}; waiting for their feedback by {weekday}."
)
TOPICS = _lex(
    "data privacy|the Q3 budget|the cloud migration|customer onboarding|supply chain delays|"
    "the pricing changes|the product roadmap|the hiring plan|the security audit|the API redesign"
)
DOCS = _lex(
    "report|contract|invoice|proposal|slide deck|spreadsheet|meeting notes|design doc|quote|itinerary"
)

AIRPORTS = _lex("JFK|LAX|ORD|ATL|DFW|DEN|SFO|SEA|BOS|MIA|LHR|CDG|FRA|AMS|MAD|FCO|NRT|HND|ICN|SIN|DXB|SYD|YYZ|MEX|GRU|JNB|EWR|LAS|MCO|IAH")  # fmt: skip
MAJOR_CURRENCIES = _lex("USD|EUR|GBP|JPY|CAD|AUD|CHF|CNY|INR|MXN|BRL|SEK|NZD|SGD|HKD|KRW")
MAJOR_LANGUAGES = _lex("English|Spanish|French|German|Italian|Portuguese|Japanese|Chinese|Korean|Arabic|Hindi|Russian|Dutch")  # fmt: skip
LOCALES = _lex("en_US|en_GB|fr_FR|de_DE|es_ES|it_IT|ja_JP|pt_BR|zh_CN|ko_KR|nl_NL|sv_SE")


# ----------------------------------------------------------------------------------------------
# Faker: one instance per thread (creating one costs ~20 ms; reseeding it costs ~5 us).

_LOCAL = threading.local()


def faker_for(key: str) -> Any:
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


def norm(text: str) -> str:
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
def word_data() -> _Data:
    # its own generator: reseeding the thread's shared one here, on first use in the middle of a
    # column, made the first state built in a process differ from every later build of it
    from faker import Faker

    fake = Faker("en_US")["en_US"]
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
    timezones = tuple(sorted({tz for c in countries for tz in c.timezones} | {p.timezone for p in PLACES}))
    lexicons = {k: frozenset(norm(v) for v in vs) for k, vs in LEXICONS.items()}
    return _Data(
        first=tuple(first),
        first_cum=_cumulative(first.values()),
        last=tuple(last),
        last_cum=_cumulative(last.values()),
        words=tuple(lorem_en),
        generic=frozenset(lorem_en) | frozenset(Latin.word_list) | STOCK | {"every", "day"},
        given=frozenset(n.lower() for n in (*first, *INTL_FIRST)),
        family=frozenset(n.lower() for n in (*last, *INTL_LAST)),
        countries=names,
        country_set=frozenset(norm(n) for n in names)
        | frozenset(
            norm(n)
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
        | frozenset(norm(p.country) for p in PLACES),
        alpha2=tuple(_provider_data(fake, "alpha_2_country_codes")),
        alpha3=tuple(_provider_data(fake, "alpha_3_country_codes")),
        currencies=tuple(code for code, _ in currencies),
        currency_names=frozenset(norm(name) for _, name in currencies),
        languages=tuple(_provider_data(fake, "language_names")),
        colors=basic_colors + tuple(re.sub(r"(?<=[a-z])(?=[A-Z])", " ", c) for c in colors),
        color_set=frozenset(norm(c) for c in basic_colors)
        | frozenset(norm(c) for c in colors)
        | frozenset(norm(re.sub(r"(?<=[a-z])(?=[A-Z])", " ", c)) for c in colors),
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
