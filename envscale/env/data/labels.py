"""Names of things by their kind: what people call a ledger account, a leave type, a webhook or a warehouse.

A table's `name` (or `title`) of a kind no lexicon knows used to get a label made from the kind itself
("Finance Location", "Elizabeth's Apis", "Summer 2023 Configuration"), which outside readers took for
filler. `LABELS` holds, for the kinds of things APIs name most, templates of the names their users give
them ("Accounts Receivable", "Sick Leave", "Order created -> Slack", "{city} Distribution Center"), and
`kind_label` picks one for a row:

- the kind is matched on its last words, the most specific first (`tax rate` before `rate`, `ledger
  account` before `account`), after singularising each word;
- a table's rows go through the kind's templates in a shuffled order before any repeats, so ten leave
  types are ten different leave types where the list has ten; a name a row of the column already has is
  drawn again (its slots) or left to the caller, so a person tells the rows apart;
- `{slots}` are filled from the row's generator: `{first}`, `{last}`, `{person}`, `{city}`, `{hood}`,
  `{team}`, `{company}`, `{product}`, `{year}`, `{quarter}`, `{season}`, `{month}`, `{weekday}`, `{n}`.

Returns `None` for a kind it does not know; the caller keeps its own label then.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable, Mapping

_T = tuple[str, ...]


def _split(text: str) -> _T:
    return tuple(v.strip() for v in text.split("|") if v.strip())


_BANK_ACCOUNTS = _split(
    "Everyday Checking|Joint Savings|{first}'s Checking|Emergency Fund|Business Checking|High-Yield Savings|"
    "Travel Rewards Card|Payroll Account|Operating Account|Tax Reserve|Holiday Savings|Visa Platinum|"
    "Mortgage|Car Loan|Brokerage|{first}'s Savings|House Deposit Fund|Petty Cash|Euro Account|College Fund"
)
_LEDGER_ACCOUNTS = _split(
    "Accounts Receivable|Accounts Payable|Office Supplies|Rent Expense|Sales Revenue|Payroll Expenses|"
    "Cash on Hand|Software Subscriptions|Travel Expenses|Utilities|Bank Fees|Advertising|Cost of Goods Sold|"
    "Consulting Income|Prepaid Insurance|Sales Tax Payable|Retained Earnings|Equipment|Meals and Entertainment|"
    "Interest Income|Professional Fees|Depreciation|Inventory Asset|Owner's Equity"
)

#: Templates of names by kind (singular words, lower case). A kind missing here keeps the caller's label.
LABELS: dict[str, _T] = {
    "account": _BANK_ACCOUNTS,
    "bank account": _BANK_ACCOUNTS,
    "customer account": _split(
        "{company}|{company} {city}|{last} & Sons|{last} Consulting|{city} Dental Group|"
        "{last} Family Practice|{company} Europe|{company} Marketing|{last} Design Studio"
    ),
    "ledger account": _LEDGER_ACCOUNTS,
    "transaction account": _LEDGER_ACCOUNTS,
    "parent account": _LEDGER_ACCOUNTS,
    "account receivable account": _split(
        "Accounts Receivable|Trade Debtors|Customer Receivables|Other Receivables"
    ),
    "tax payable account": _split("Sales Tax Payable|VAT Payable|GST Payable|Payroll Tax Payable"),
    "tax remitted account": _split("Sales Tax Remitted|VAT Remitted|GST Paid|Tax Clearing"),
    "address": _split(
        "Home|Work|Billing Address|Shipping Address|{city} Office|Parents' House|Warehouse|PO Box|Vacation Home|Head Office"
    ),
    "shipping address": _split(
        "Home|Work|{first}'s Place|{city} Office|Parents' House|Front Desk|Reception|Loading Bay"
    ),
    "default shipping address": _split("Home|Work|{city} Office|Main Office"),
    "group": _split(
        "{team} Team|Book Club|Project Managers|Beta Testers|Admins|Night Shift|{city} Volunteers|"
        "Weekend Hikers|New Hires {year}|Regional Managers|Parents' Association|Alumni {year}|Contractors|"
        "Support Tier 2|{team} Leads|Study Group {n}"
    ),
    "user group": _split("Admins|Editors|Viewers|{team} Team|Contractors|Auditors|Power Users|Guests"),
    "resource group": _split(
        "rg-{codeword}-prod|rg-{codeword}-staging|rg-web-frontend|rg-data-pipeline|rg-shared-networking|rg-ml-training"
    ),
    "service group": _split(
        "Hair Services|Massage|Consultations|Dental Care|Physiotherapy|Nail Care|Coaching|Repairs"
    ),
    "modifier group": _split(
        "Toppings|Sauces|Milk Options|Sides|Size|Extra Shots|Dressings|Sweetener|Add-ons|Bread Choice"
    ),
    "attachment": _split(
        "invoice_{nn}.pdf|contract_signed.pdf|photo_{nn}.jpg|receipt_{month}.png|report_{year}.xlsx|notes.docx|screenshot_{nn}.png|agenda.pdf"
    ),
    "definition": _split(
        "Customer Lifetime Value|Active User|Churned Account|Qualified Lead|Net Revenue|Monthly Recurring Revenue|Gross Margin|Overdue Invoice"
    ),
    "source": _split(
        "Website|Referral|Trade Show|Cold Call|LinkedIn|Google Ads|Newsletter|Partner|Walk-in|Email Campaign|Webinar|Instagram"
    ),
    "lead source": _split("Website|Referral|Trade Show|Cold Call|LinkedIn|Google Ads|Newsletter|Partner"),
    "application": _split(
        "Payroll Portal|Customer Dashboard|Mobile Banking App|Inventory Tracker|HR Self-Service|Support Desk|"
        "Expense Reporter|Partner Portal|Data Warehouse Sync|Marketing Site|Internal Wiki|Billing Service"
    ),
    "tax rate": _split(
        "VAT 20%|GST 10%|Sales Tax (CA) 7.25%|Reduced VAT 5%|Zero Rated|Exempt|HST 13%|Sales Tax (NY) 8.875%|Service Tax 6%|Import Duty 2.5%"
    ),
    "tax": _split(
        "VAT|GST|Sales Tax|State Tax|City Tax|Excise Duty|Service Tax|Exempt|Reduced VAT|Withholding Tax"
    ),
    "collection": _split(
        "{codeword} API Tests|Payments API|Onboarding Flows|Billing Support|Smoke Tests|Auth Service|"
        "Customer Feedback|Partner Integrations|Release {n}.0 Regression|Internal Tools|Mobile Backend|Webhooks"
    ),
    "option": _split(
        "Extra Cheese|Oat Milk|Gluten-Free Crust|Large|Decaf|No Ice|Extra Shot|Spicy|Side Salad|Whole Wheat|Vanilla Syrup|Well Done"
    ),
    "modifier": _split(
        "Extra Cheese|Oat Milk|Gluten-Free Crust|Large|Decaf|No Ice|Extra Shot|Spicy|Side Salad|Whole Wheat"
    ),
    "inventory item": _split("{product}"),
    "sku": _split("{product}"),
    "template": _split(
        "Welcome Email|Password Reset|Invoice Reminder|Order Confirmation|Monthly Newsletter|Meeting Follow-up|"
        "Shipping Update|Renewal Notice|Event Invitation|Feedback Request|Offer Letter|Payment Receipt"
    ),
    "workspace": _split(
        "{team} Workspace|{company}|Product Launch {year}|Client Projects|Personal|Design System|Q{quarter} Planning|{codeword} Team"
    ),
    "version": _split("v1.0|v1.1|v2.0|v2.1|v2.3|v3.0-beta|v0.9|v1.4.2|v2.0.1|v3.2|Draft|Release Candidate"),
    "api version": _split("v1|v2|v3|v1-beta|2024-06-01|2025-01-15|v2.1|v4"),
    "type": _split("Standard|Premium|Internal|External|Recurring|One-off|Priority|Basic|Enterprise|Trial"),
    "case": _split(
        "Login issue for {person}|Refund request #{nn}|Damaged item on delivery|Billing discrepancy in {month}|"
        "Password reset not received|Cannot export report|Late shipment to {city}|Duplicate charge|"
        "Account locked|Feature request: dark mode"
    ),
    "status": _split("Open|In Progress|Pending Review|Blocked|Done|Cancelled|On Hold|Waiting on Customer"),
    "task status": _split("To Do|In Progress|In Review|Blocked|Done"),
    "task priority": _split("Low|Medium|High|Urgent"),
    "task type": _split("Development|Design|Meeting|Research|Testing|Support|Admin"),
    "default account task type": _split("Development|Design|Consulting|Project Management|Support"),
    "rule": _split(
        "Block high-risk payments|Auto-assign VIP tickets|Flag orders over $1,000|Escalate after 24 hours|"
        "Route refunds to finance|Require 2FA for admins|Tag returning customers|Notify on failed login"
    ),
    "offering": _split(
        "Introduction to Data Science ({season} {year})|Workplace Safety Induction|Advanced Excel ({month} intake)|"
        "Project Management Essentials|First Aid Certificate {year}|Leadership Foundations ({season} {year})|"
        "Customer Service Excellence|Cyber Security Awareness {year}"
    ),
    "channel": _split(
        "#general|#random|#engineering|#support|#sales-leads|#announcements|#design|#{team_slug}|#incidents|#release-notes"
    ),
    "request": _split(
        "New laptop for {first}|Access to the finance share|Vacation approval {month}|Software license renewal|"
        "Office chair replacement|VPN access for {first} {last}|Conference travel to {city}|Budget increase for Q{quarter}"
    ),
    "warehouse": _split(
        "{city} Distribution Center|{city} Fulfillment Center|{city} North Warehouse|Main Warehouse|{city} Cold Storage|East Coast Hub|Returns Center"
    ),
    "warehouse dock": _split("Dock {n}|Loading Bay {letter}|Inbound Dock {n}|Outbound Dock {n}"),
    "dock": _split("Dock {n}|Loading Bay {letter}|Inbound Dock {n}|Outbound Dock {n}"),
    "location": _split(
        "{city} Downtown|{city} Airport|{hood} Studio|{city} Main Street|{city} Flagship Store|{hood} Clinic|Head Office|{city} West"
    ),
    "policy": _split(
        "Remote Work Policy|Refund Policy|Travel Expense Policy|Data Retention Policy|Password Policy|"
        "Code of Conduct|Parental Leave Policy|Acceptable Use Policy|Returns Policy|On-Call Policy"
    ),
    # an eBay seller's policies (seed 92's readers: a return policy named "Parental Leave Policy")
    "return policy": _split(
        "30-Day Returns|Free Returns|No Returns|14-Day Money Back|60-Day Holiday Returns|Exchange Only"
    ),
    "payment policy": _split(
        "Immediate Payment|Cards and PayPal|Pay on Pickup|Net 30 for Businesses|Managed Payments"
    ),
    "fulfillment policy": _split(
        "Free shipping over $50|Standard Ground|Express 2-Day|Same-Day Dispatch|Local Pickup|International Economy"
    ),
    "shipping policy": _split(
        "Free shipping over $50|Standard Ground|Express 2-Day|Next-Day Air|International Economy|Local Pickup"
    ),
    "note": _split(
        "Call notes with {person}|Ideas for Q{quarter}|Meeting minutes {month} {day}|Groceries|Follow-ups for {weekday}|"
        "Reading list|Packing list for {city}|Interview feedback: {person}"
    ),
    "sla type": _split("Standard|Express|Scheduled|Next Day|Same Day|Economy"),
    "report": _split(
        "Monthly Sales Report|{month} {year} Expenses|Quarterly Revenue Q{quarter} {year}|Inventory Summary|Customer Churn Analysis|Timesheet Summary|Annual Budget {year}|Web Traffic {month}"
    ),
    "expense report": _split(
        "{month} {year} travel to {city}|{city} client visit|Conference expenses {month}|Team offsite {season} {year}|Office supplies {month}"
    ),
    "monitor": _split(
        "Checkout API uptime|Login latency|Payments health check|Nightly backup job|Search API p95|Order webhook delivery|Homepage availability|Inventory sync"
    ),
    "environment": _split("Production|Staging|Development|QA|Sandbox|Local|Preview|Load Testing"),
    "documentation": _split(
        "Getting Started|API Reference|Authentication Guide|Webhooks Guide|Changelog|Migration Guide v2|Rate Limits|Error Codes"
    ),
    "leave type": _split(
        "Annual Leave|Sick Leave|Parental Leave|Unpaid Leave|Bereavement Leave|Jury Duty|Study Leave|Compassionate Leave|Public Holiday|Time Off in Lieu|"
        "Maternity Leave|Paternity Leave|Adoption Leave|Carer's Leave|Sabbatical|Military Leave|Volunteer Day|Moving Day|"
        "Wellness Day|Religious Holiday"
    ),
    # a seller's marketplaces (seed 93: "Lagos Marketplace")
    "marketplace": _split(
        "eBay US|eBay UK|eBay Germany|eBay Australia|eBay Canada|eBay France|eBay Italy|eBay Spain|Amazon US|"
        "Amazon UK|Amazon Germany|Etsy|Walmart Marketplace|Zalando|Bol.com|Allegro|Mercado Libre|Rakuten|"
        "Shopee|Kaufland"
    ),
    "expense category": _split(
        "Travel|Meals|Lodging|Mileage|Office Supplies|Software|Training|Client Entertainment"
    ),
    "expense category unit": _split("km|mile|night|day|hour|unit"),
    "expense payment method": _split("Company Card|Personal Card|Cash|Bank Transfer|Reimbursable"),
    "payment method": _split(
        "Visa ending {nnnn}|Mastercard ending {nnnn}|PayPal|Bank Transfer|Apple Pay|Cash|Amex ending {nnnn}|Direct Debit"
    ),
    "payment system": _split("Visa|Mastercard|American Express|PayPal|Apple Pay|Google Pay|Boleto|Pix"),
    "method": _split("Credit Card|Bank Transfer|PayPal|Cash|Cheque|Direct Debit|Apple Pay"),
    "order type": _split("Dine In|Takeout|Delivery|Curbside Pickup|Catering|Drive-Thru"),
    "service charge": _split(
        "Service Charge 12.5%|Large Party Gratuity 18%|Delivery Fee|Corkage Fee|Late Night Surcharge|Packaging Fee"
    ),
    "campaign": _split(
        "Spring Sale {year}|Black Friday {year}|Back to School|Holiday Gift Guide|Summer Clearance|Product Launch: {product}|Win-back {month}|Newsletter Signup Drive"
    ),
    "ad": _split(
        "Spring Sale banner|{product} video ad|Retargeting carousel|Holiday promo story|Search ad: {city} deals|Free trial sidebar"
    ),
    "contract": _split(
        "{company} Master Services Agreement|{company} NDA|Office Lease {city}|Maintenance Contract {year}|Software License {year}|{company} Supply Agreement"
    ),
    "loss reason": _split(
        "Price too high|Went with a competitor|No budget|No decision|Timing not right|Missing features|Lost contact"
    ),
    "won reason": _split("Best price|Strong relationship|Product fit|Fast delivery|Referral|Better support"),
    "stage": _split(
        "Prospecting|Qualified|Proposal Sent|Negotiation|Closed Won|Closed Lost|Discovery|Demo Scheduled"
    ),
    "pipeline stage": _split("Prospecting|Qualified|Proposal Sent|Negotiation|Closed Won|Closed Lost"),
    "pipeline": _split("Sales Pipeline|Enterprise Deals|Partnerships|Renewals|Hiring Pipeline|Inbound Leads"),
    "calendar": _split(
        "{first}'s Calendar|Team Calendar|Holidays|On-Call Rota|Meeting Rooms|Family|Work|Release Schedule"
    ),
    "list": _split(
        "Groceries|Weekend chores|Packing list|Reading list|Gift ideas|Errands|{team} backlog|Home repairs|Trip to {city}|Books to read"
    ),
    "task list": _split(
        "Groceries|Weekend chores|Packing list|Errands|{team} backlog|Home repairs|Trip to {city}"
    ),
    "appointment": _split(
        "Dental cleaning|Haircut with {first}|Annual check-up|Physio session|Car service|Consultation with {person}|Eye exam|Massage (60 min)"
    ),
    "appointment type": _split(
        "Initial Consultation|Follow-up Visit|Annual Check-up|Haircut|Massage (60 min)|Video Call|Home Visit"
    ),
    "travel appointment": _split(
        "Home visit at {street}|On-site repair in {city}|Delivery to {street}|Client visit in {city}"
    ),
    "meeting": _split(
        "Weekly team sync|Project kickoff|1:1 with {first}|Quarterly business review|Sprint planning|Budget review Q{quarter}|Design critique|Board meeting"
    ),
    "activity": _split(
        "Call with {person}|Demo for {company}|Follow-up email to {first}|Lunch with {person}|Contract review|Site visit in {city}"
    ),
    "payee": _split(
        "Whole Foods|Comcast|Shell|Amazon|Landlord ({last})|Netflix|City Water Dept.|{company}|Trader Joe's|Spotify|Verizon|Costco|Starbucks|State Farm"
    ),
    "import payee": _split(
        "WHOLEFDS #{nn}|COMCAST CABLE|SHELL OIL {nnnn}|AMZN Mktp US|NETFLIX.COM|SQ *{last} CAFE"
    ),
    "gift card": _split(
        "$25 Gift Card|$50 Gift Card|$100 Gift Card|Holiday Gift Card|Birthday Gift Card|Store Credit"
    ),
    "department": _split(
        "Engineering|Sales|Marketing|Finance|Human Resources|Operations|Customer Support|Legal|Product|Design"
    ),
    "division": _split("North America|EMEA|APAC|Consumer|Enterprise|Public Sector"),
    "permission": _split(
        "View invoices|Edit invoices|Manage users|Approve expenses|Export reports|Delete projects|Manage billing|Read-only"
    ),
    "budget": _split(
        "Household Budget {year}|{team} Budget {year}|Wedding Budget|Vacation Fund|Renovation {year}|Monthly Budget"
    ),
    "website": _split(
        "{company_slug}.com|Company Blog|Online Store|Help Center|Careers Site|Investor Relations"
    ),
    "dashboard": _split(
        "Sales Overview|Marketing KPIs|Support Metrics|Executive Summary|Inventory Health|Website Traffic"
    ),
    "badge": _split(
        "First Course Completed|Quiz Master|Perfect Attendance|Team Player|Top Contributor|Fast Learner"
    ),
    # names that hold no date of their own ("Memorial Day" stood on 2025-03-17)
    "holiday": _split(
        "Office closed|Staff training day|Company offsite|Inventory day|Team day|Maintenance shutdown|Founders' day|"
        "Wellness day"
    ),
    "webhook": _split(
        "Order created -> Slack|Payment failed alert|New signup to CRM|Invoice paid -> accounting|Ticket updated|Nightly export done"
    ),
    "api key": _split(
        "CI deploy key|Production backend|Mobile app key|Zapier integration|Analytics export|Staging key"
    ),
    "apikey": _split(
        "CI deploy key|Production backend|Mobile app key|Zapier integration|Analytics export|Staging key"
    ),
    "configuration": _split(
        "Production config|Staging config|Default settings|EU region settings|Holiday opening hours|Checkout settings"
    ),
    "api": _split(
        "Payments API|Orders API|Users API|Inventory API|Notifications API|Search API|Billing API|Auth API"
    ),
    "mock": _split("Payments API mock|Orders API mock|Staging mock server|Checkout sandbox|Users API mock"),
    "test suite": _split("Smoke tests|Regression suite|Checkout flow tests|Auth tests|Nightly integration"),
    "testsuite": _split("Smoke tests|Regression suite|Checkout flow tests|Auth tests|Nightly integration"),
    "integrationtest": _split("Checkout flow|Signup to first order|Refund round trip|Login with SSO"),
    "contracttest": _split("Orders API contract|Payments schema check|Users API contract"),
    "vulnerability": _split(
        "SQL injection in login form|Stored XSS in comments|Outdated OpenSSL|Open S3 bucket|Weak TLS ciphers|Hard-coded credentials|Path traversal in uploads"
    ),
    "project": _split(
        "Website Redesign|Mobile App v2|Office Move {year}|Data Warehouse Migration|Q{quarter} Marketing Campaign|Customer Onboarding|CRM Rollout|Annual Audit {year}"
    ),
    "feature": _split(
        "Dark mode|Two-factor login|CSV export|Saved searches|Bulk edit|Offline mode|Push notifications|Single sign-on"
    ),
    "page": _split("About Us|Pricing|Contact|Careers|FAQ|Home|Terms of Service|Blog"),
    "rate": _split("Standard Rate|Weekend Rate|Overtime|Consulting (hourly)|Senior Developer|Rush Delivery"),
    "batch": _split(
        "Payroll {month} {year}|Supplier payments {weekday}|Refunds {month}|Contractor payouts|Rent run {month}|Bonus payments Q{quarter}"
    ),
    "assessment": _split(
        "Final Exam|Midterm Quiz|Practical Assessment|Module 1 Quiz|Portfolio Review|Case Study Report"
    ),
    "quiz": _split("Module 1 Quiz|Safety Quiz|Weekly Check-in Quiz|Final Quiz|Practice Quiz"),
    "course": _split(
        "Introduction to Data Science|Workplace Safety|Advanced Excel|Project Management Essentials|First Aid|Leadership Foundations"
    ),
    "position": _split("{job}"),
    "playlist": _split(
        "Morning Run|Focus Flow|Road Trip {year}|Chill Evenings|Workout Mix|Dinner Party|{first}'s Favorites|Throwback Hits"
    ),
    "session": _split(
        "Morning workshop|Keynote: the future of {topic}|Breakout session {letter}|Q&A panel|Afternoon lab"
    ),
    "snapshot": _split(
        "pre-upgrade-{year}-{mm}|nightly-{mm}-{day}|before-migration|weekly-{nn}|release-{n}.0"
    ),
    "deployment": _split("web-frontend|api-server|worker-queue|payments-service|search-indexer|auth-gateway"),
    "node": _split("node-{n}|worker-{n}|db-primary|db-replica-{n}|edge-{city_slug}"),
    "pod": _split("api-server-{hash}|worker-{hash}|web-{hash}|redis-{n}"),
    "plugin": _split(
        "SEO Helper|Contact Form|Backup Manager|Image Optimizer|Analytics Connector|Spam Filter"
    ),
    "diary": _split("Work Diary|Training Log|Food Journal|Travel Journal {year}|Project Diary"),
    "design": _split(
        "Homepage mockup|Logo refresh|Checkout flow v2|Mobile onboarding|Email header|Brand guidelines"
    ),
    "message": _split(
        "Re: invoice {ref}|Quick question about {month}|Meeting on {weekday}|Your order has shipped|"
        "Follow-up from {first}|Updated schedule|Welcome aboard!|Reminder: payment due|Weekend plans?|Project update"
    ),
    "email": _split(
        "Re: invoice {ref}|Quick question about {month}|Meeting on {weekday}|Your order has shipped|Follow-up from {first}|Welcome aboard!"
    ),
    "bill": _split(
        "Electricity {month}|Water bill Q{quarter}|Internet {month}|Office rent {month}|{company} invoice {ref}|Phone bill {month}"
    ),
    "estimate": _split(
        "Kitchen remodel|Website build for {company}|Roof repair|Annual support plan|Office fit-out {city}|Logo design package"
    ),
    "invoice": _split(
        "Consulting services {month}|Website maintenance Q{quarter}|{company} monthly retainer|Design work {month} {year}|Hardware order {ref}"
    ),
    "article": _split(
        "How to reset your password|Getting started guide|Shipping and returns|Billing FAQ|Troubleshooting login issues|What's new in {month}"
    ),
    "post": _split(
        "Launch day recap|Five tips for remote teams|Our {year} roadmap|Behind the scenes in {city}|Customer story: {company}|Hiring update"
    ),
    "section": _split(
        "Introduction|Getting Started|Week 1: Basics|Advanced Topics|Summary|Appendix|Module {n}"
    ),
    "spot": _split(
        "{hood} viewpoint|{city} riverside bench|Old lighthouse|Hidden waterfall|Rooftop garden in {city}|{last} Park playground|Sunset point"
    ),
    "scenario": _split(
        "Checkout with expired card|Guest signup|Refund after shipment|Password reset flow|Bulk import of 1,000 rows|Peak traffic"
    ),
    "submission": _split(
        "Assignment 1 - {person}|Final project - {person}|Essay draft - {person}|Lab report {n} - {person}"
    ),
    "order": _split(
        "Office supplies restock|Birthday gift for {first}|Monthly coffee beans|New laptops for {team}|Replacement parts"
    ),
    "entry": _split(
        "Morning standup notes|Expense: taxi to {city} airport|Workout: 5k run|Client call with {person}|Reading: chapter {n}"
    ),
    "video": _split(
        "Product demo|Onboarding walkthrough|Webinar recording {month}|Customer testimonial: {company}|How-to: setting up 2FA|Team intro"
    ),
    "asset": _split(
        "Logo (SVG)|Hero banner {season}|Product photo - {product}|Brand guidelines PDF|Promo video {year}|Icon set"
    ),
    "document": _split(
        "Employment contract - {person}|Q{quarter} board deck|Invoice {ref}|Lease agreement|Onboarding checklist|Meeting minutes {month}"
    ),
    "download": _split("Annual report {year}|Product catalog|User manual|Price list {year}|Brochure"),
    "reference": _split("PO-{nnnn}|INV-{nnnn}|REF-{nnnn}|Order {nnnn}|Project {codeword}"),
    "content": _split("Welcome video|Module 1 reading|Course syllabus|Safety handbook|Practice worksheet"),
    "profile": _split("Default|Work|Personal|Travel|Guest|Kids"),
    "target": _split(
        "Q{quarter} revenue target|Monthly signups|Support response time|Units sold {year}|New customers {season}"
    ),
    "export": _split(
        "Customers {month} {year}|Orders Q{quarter}|Full backup {year}-{mm}|Invoices {year}|Timesheets {month}"
    ),
    "supply lot": _split("Lot {year}-{nnnn}|Batch {letter}{nn}|Lot {nnnn}"),
    "variant": _split(
        "Small / Black|Medium / Blue|Large / Red|XL / Grey|One Size|Small / White|Large / Green|Medium / Black"
    ),
    "unit": _split("piece|box|kg|hour|liter|pack|dozen|meter"),
    "geoshape": _split(
        "{city} delivery zone|{hood} service area|{city} city limits|Airport exclusion zone|Warehouse geofence"
    ),
    "zone": _split("{city} Central|{hood}|Zone {letter}|Downtown {city}|Free delivery zone"),
    "resource": _split("{person}|Conference Room {letter}|Treatment Room {n}|Projector|Van {n}|Chair {n}"),
    "lock": _split("Front door|Back office|Server room|Garage|Storage unit {n}|Bike shed"),
    "debtor": _split("{person}|{company}"),
    "consumer": _split("{person}"),
    "panelist": _split("{person}"),
    "coordinator": _split("{person}"),
    "professional": _split("{person}"),
    "originator": _split("{company}|{city} Gym|{company} Insurance|City Council Tax|{last} Energy"),
    "relation": _split("Spouse|Parent|Child|Sibling|Friend|Colleague|Guardian"),
    "call": _split("Support call with {person}|Sales call: {company}|Weekly check-in|Interview: {person}"),
    "trace": _split("checkout-request|login-flow|search-query|order-sync|payment-capture"),
    "cwe": _split(
        "Improper Input Validation|Cross-site Scripting|SQL Injection|Path Traversal|Missing Authentication|Use After Free"
    ),
    "patch": _split(
        "Security update {year}-{mm}|Hotfix {n}.{n}.1|Kernel update|Browser update|Driver update"
    ),
    "authorization": _split(
        "Read access to {team} files|Admin rights for {first}|API access for {company}|Billing approval"
    ),
    "activation": _split("Spring campaign activation|Store opening {city}|Loyalty launch|Trial activation"),
    "fork": _split("{first_lower}/{repo}|{last_lower}-dev/{repo}|{first_lower}-{last_lower}/{repo}"),
    "custom object": _split("Subscription|Contract Line|Site Visit|Equipment|Warranty|Membership"),
    "entity": _split("{company}|{person}|{city} Branch"),
    "summary": _split("{month} summary|Weekly digest|Q{quarter} recap|Year in review {year}"),
    "discount": _split(
        "Summer Sale 10%|Loyalty 5%|Staff Discount|First Order 15%|Student 20%|Black Friday 25%|Bulk Order 8%|Senior Citizen 10%"
    ),
    "release": _split(
        "v{n}.0.0|v2.{n}.0|Spring release {year}|Hotfix {n}.{n}.1|{month} {year} release|Beta {n}"
    ),
    "invoice transaction": _split(
        "Payment received {ref}|Partial payment {ref}|Refund {ref}|Credit note {ref}"
    ),
    "timesheet": _split("Week of {month} {day}|{month} {year}|Sprint {n} hours|{first}'s week {nn}"),
    "expense": _split(
        "Taxi to {city} airport|Team lunch|Hotel in {city} (2 nights)|Train to {city}|Client dinner with {company}|Conference ticket|Office chair"
    ),
    "leave": _split(
        "Annual leave {month}|Sick day {weekday}|Family trip to {city}|Parental leave|Doctor's appointment|Long weekend"
    ),
    "instance": _split("web-prod-{n}|db-primary|worker-{n}|api-staging-{n}|cache-{n}|batch-runner"),
    "category": _split(
        "Groceries|Rent|Dining Out|Transport|Utilities|Entertainment|Health|Travel|Subscriptions|Gifts|Insurance|Clothing"
    ),
    "institution": _split(
        "Chase|Bank of America|Wells Fargo|Barclays|HSBC|Citibank|Capital One|ING|Santander|Monzo"
    ),
    "conversation": _split(
        "Support chat with {person}|Question about order {nnnn}|Booking change for {first}|Delivery to {city}|Billing question from {first}"
    ),
    "drive": _split(
        "My Drive|{team} Shared Drive|Marketing Assets|Finance Archive|Project Files|Team Photos"
    ),
    "map": _split(
        "{city} food spots|Hiking trails near {city}|Road trip {year}|Coffee shops in {city}|Wedding venues|Kids' playgrounds"
    ),
    "booking": _split(
        "Trip to {city}|Conference in {city}|Weekend in {city}|Family visit {month}|Team offsite {season} {year}"
    ),
    "import": _split(
        "Bank statement {month}|Customers CSV {month}|Contacts from Gmail|Products spreadsheet|Orders {year}-{mm}"
    ),
    "org unit": _split(
        "Engineering|Sales EMEA|Marketing|Finance|Customer Success|Research|Operations APAC|Legal"
    ),
    "orgunit": _split(
        "Engineering|Sales EMEA|Marketing|Finance|Customer Success|Research|Operations APAC|Legal"
    ),
    "apis": _split(
        "Payments API|Orders API|Users API|Inventory API|Notifications API|Search API|Billing API|Auth API"
    ),
    "openapis": _split(
        "Payments API|Orders API|Users API|Inventory API|Notifications API|Search API|Billing API|Auth API"
    ),
    "skus": _split("{product}"),
    "statuse": _split("Open|In Progress|Pending Review|Blocked|Done|Cancelled|On Hold|Waiting on Customer"),
    "quizz": _split("Module 1 Quiz|Safety Quiz|Weekly Check-in Quiz|Final Quiz|Practice Quiz"),
    "pickup point": _split(
        "{city} Central Station lockers|{hood} post office|{last}'s Pharmacy|{city} Mall pickup desk|Gas station on {street}"
    ),
    "reading list": _split(
        "Summer reads {year}|Book club picks|Sci-fi classics|Leadership books|To read next"
    ),
    "course design": _split(
        "Introduction to Data Science|Workplace Safety|Advanced Excel|Project Management Essentials"
    ),
    "copy": _split("Copy {n} (library)|Loan copy {letter}|Reference copy|Signed first edition"),
    "fabric": _split("fabric-{city_slug}-{n}|dc-fabric-{letter}|campus-fabric"),
}

# Kinds seed 94's readers found named "Lyon Role", "Q4 2023 Message", "Sydney Opportunity", "Product Apis": the names
# their users give them.
_SEGMENTS = _split(
    "VIP Customers|New Signups (30 days)|Inactive 90 Days|Newsletter Subscribers|Cart Abandoners|High Spenders|"
    "{city} Customers|Trial Users|Repeat Buyers|Enterprise Accounts"
)
_WORKFLOWS = _split(
    "New Lead Follow-up|Invoice Approval|Employee Onboarding|Ticket Escalation|Welcome Series|"
    "Abandoned Cart Reminder|Expense Approval|Weekly Report|Renewal Reminder|Churn Prevention"
)
_SURVEYS = _split(
    "Customer Satisfaction {year}|Employee Engagement Q{quarter}|Post-Event Feedback|Product Feedback|"
    "Net Promoter Score|Onboarding Experience|Lunch Preferences|Team Offsite Poll|Website Usability|Exit Survey"
)
_SAVED_VIEWS = _split(
    "My Open Tickets|Overdue Invoices|High Priority|Created This Week|Assigned to Me|Unassigned|VIP Customers|"
    "Closed Last Month|Needs Review|Due Today"
)
_DEALS = _split(
    "{company} - Annual Renewal|{company} - New Licenses|{company} Expansion|{company} Pilot|{company} - {n}0 Seats|"
    "{company} Upsell|{company} Support Contract|{company} - Q{quarter} Deal"
)
_TICKETS = _split(
    "Login page not loading|Refund not received|Password reset email missing|Cannot export to CSV|"
    "Checkout error on mobile|Slow dashboard|Wrong invoice amount|App crashes on startup|Missing order items|"
    "Cannot upload attachment|Order {nnnn} not delivered|Refund request #{nn}|{first} cannot log in"
)
_PLANS = _split(
    "Starter|Pro|Business|Enterprise|Free|Premium Annual|Basic Monthly|Team|Family Plan|Student Monthly"
)
_SESSIONS = _split(
    "Getting Started with {team} Tools|Product Demo|Quarterly Business Review|Onboarding for New Customers|"
    "Advanced Reporting|Security Best Practices|Office Hours|What's New in {year}|Sales Kickoff {year}|Ask Me Anything"
)
LABELS.update(
    {
        "role": _split(
            "Admin|Billing Admin|Editor|Viewer|Support Agent|Project Manager|Read-only|Developer|Account Owner|"
            "Auditor|Team Lead|Guest|{team} Manager|{team} Viewer|{team} Editor"
        ),
        "recipe": _split(
            "Lemon Garlic Chicken|Vegetable Lasagna|Banana Bread|Thai Green Curry|Spaghetti Carbonara|Overnight Oats|"
            "Beef Tacos|Mushroom Risotto|Chickpea Salad|Blueberry Pancakes|Shakshuka|Tomato Soup|{first}'s Chili|"
            "Grandma {last}'s Apple Pie|{city}-Style Pizza"
        ),
        "error": _split(
            "NullReferenceException in OrdersController|Timeout calling the payment gateway|HTTP 500 on /api/orders|"
            "Database connection refused|Invalid JSON in request body|Out of memory in worker {n}|Token expired|"
            "File not found: config.yaml|Disk quota exceeded|SSL handshake failed|Timeout after {n}0 seconds in job {nn}|"
            "NullReferenceException at line {nnnn}"
        ),
        "opportunity": _DEALS,
        "deal": _DEALS,
        "share": _split(
            "Client Deliverables|Board Pack Q{quarter}|Photos from {city}|Contract Drafts|Design Assets|"
            "Audit Documents {year}|Press Kit|Shared with {first}|Tax Returns {year}|Project Handover"
        ),
        "notification": _split(
            "Order shipped|Payment received|Password changed|Weekly summary|New comment on your post|Invoice overdue|"
            "Meeting reminder|Low stock alert|Account locked|Subscription renewed|Order #{nnnn} shipped|"
            "Invoice {nnnn} is overdue|Meeting with {first} at {n} pm"
        ),
        "newsletter": _split(
            "Monthly Product Update|Weekly Digest|Spring Sale {year}|Customer Stories|Release Notes: {month}|"
            "Holiday Opening Hours|Community Roundup|Tips & Tricks #{n}"
        ),
        "alert": _split(
            "High CPU on orders-api|Disk space low on db-{n}|Payment failures spike|Low stock: {product}|"
            "Error rate above 5%|Login from a new device|SSL certificate expiring|Queue backlog growing"
        ),
        "subscription": _PLANS,
        "plan": _PLANS,
        "segment": _SEGMENTS,
        "audience": _SEGMENTS,
        "workflow": _WORKFLOWS,
        "automation": _WORKFLOWS,
        "form": _split(
            "Contact Us|Newsletter Signup|Event Registration|Job Application|Customer Feedback|Request a Demo|"
            "Support Request|Volunteer Signup"
        ),
        "survey": _SURVEYS,
        "poll": _SURVEYS,
        "filter": _SAVED_VIEWS,
        "view": _SAVED_VIEWS,
        "board": _split(
            "Product Roadmap|Sprint Board|Marketing Campaigns|Bug Triage|Hiring Pipeline|Content Calendar|"
            "{team} Tasks|Website Redesign"
        ),
        "sprint": _split("Sprint {n}|Sprint {nn}|{month} Sprint|Release {n}.0 Sprint"),
        "milestone": _split(
            "Beta Launch|v{n}.0 Release|MVP|Public Launch|Design Freeze|Q{quarter} Goals|Security Audit|"
            "Migration Complete"
        ),
        "ticket": _TICKETS,
        "issue": _TICKETS,
        "webinar": _SESSIONS,
        "training": _SESSIONS,
        "lesson": _split(
            "Introduction|Getting Started|The Basics|Advanced Topics|Final Assessment|Module {n}: Fundamentals|"
            "Case Study|Review and Quiz"
        ),
        "module": _split(
            "Introduction|Getting Started|Fundamentals|Advanced Topics|Final Assessment|Case Studies|Practice Lab"
        ),
        "quote": _split(
            "Quote for {company}|Website Redesign Estimate|Annual Support Renewal|Office Fit-out|{n}0 Licenses|"
            "Consulting Package|Hardware Refresh"
        ),
        "space": _split(
            "Engineering Wiki|HR Portal|Help Center|Marketing|Product Docs|{team} Space|Onboarding"
        ),
        "site": _split(
            "Main Site|Marketing Site|Help Center|Company Blog|Docs|Online Store|{city} Office Site"
        ),
        "blog": _split("Company Blog|Engineering Blog|Product Updates|Customer Stories|News"),
        "image": _split(
            "Hero Banner|Product Photo|Team Photo|Logo|Office Exterior|Event Photo {n}|Storefront"
        ),
        "podcast": _split(
            "The Daily Standup|Tech Talk Weekly|Founders' Stories|Marketing Minute|The Product Show|Money Matters"
        ),
        "episode": _split(
            "Episode {n}: Getting Started|Interview with {person}|Season Finale|Q&A Special|Behind the Scenes|"
            "Episode {nn}"
        ),
        "component": _split(
            "Login Form|Checkout|Search Bar|Navigation|Payment Service|Notifications|API Gateway|Reports"
        ),
    }
)

_LETTERS = "ABCDEFGH"
_REPOS = ("website", "api-client", "docs", "dotfiles", "data-tools", "mobile-app")
_HOODS = (
    "Downtown", "Midtown", "Riverside", "Old Town", "Harbor District", "Westside", "Eastside", "Uptown",
)  # fmt: skip
_STREETS = ("Main St", "Oak Ave", "Maple Dr", "Park Rd", "Elm St", "Cedar Ln", "Lake Shore Dr", "2nd Ave")
_TOPICS = ("work", "retail", "health care", "payments", "design", "AI")


_CAPITAL_SLOT = r"[A-Z0-9$#][\w'.&$-]*(?: (?:[A-Z0-9&(][\w'.&()-]*|of|and|de|la|the|on|in|for))*"
_LOWER_SLOT = r"[a-z0-9][a-z0-9._-]*"


def _slot(name: str) -> str:
    """What a `{slot}` of a template holds: lower-case words for slugs and hashes, else names and numbers."""
    return (
        _LOWER_SLOT
        if name.endswith(("_lower", "_slug")) or name in ("hash", "letter", "repo")
        else _CAPITAL_SLOT
    )


@functools.lru_cache(maxsize=1)
def _label_shapes() -> re.Pattern[str]:
    """Every `LABELS` template with words of its own (not only `{slots}`) as one pattern."""
    shapes = set()
    for templates in LABELS.values():
        for template in templates:
            pieces = re.split(r"\{([a-z_]+)\}", template)
            if not re.search(r"[A-Za-z]{3,}", "".join(pieces[::2])):
                continue  # `{first}` alone, `{n}`: nothing of the template's own to recognise it by
            shapes.add("".join(_slot(p) if i % 2 else re.escape(p) for i, p in enumerate(pieces)))
    return re.compile("|".join(f"(?:{shape})" for shape in sorted(shapes)))


def is_label(value: str) -> bool:
    """Whether a value is one of the names `kind_label` makes (a template of `LABELS`, its slots filled):
    "Customer Success Team", "Study Group 11", "Head Office" name a group, a site, an office."""
    return isinstance(value, str) and _label_shapes().fullmatch(value.strip()) is not None


def _kind_key(words: list[str]) -> str | None:
    """The longest run of last words that `LABELS` knows (`tax rate` before `rate`)."""
    for start in range(len(words)):
        key = " ".join(words[start:])
        if key in LABELS:
            return key
    return None


def kind_label(
    words: list[str],
    rng: random.Random,
    i: int,
    deck: dict[str, tuple[list[str], set[str]]],
    slots: Mapping[str, Callable[[], str]],
) -> str | None:
    """A name for row `i` of a thing of kind `words` (singular, lower case: `["ledger", "account"]`), or
    `None` where `LABELS` does not know the kind. `deck` is the column's memory of its shuffled
    templates (pass the same dict for every row of one column); `slots` make the `{slot}` values."""
    key = _kind_key(words)
    if key is None:
        return None
    templates, used = deck.setdefault(key, ([], set()))
    while i >= len(templates):  # each pass through the kind's templates in a new shuffled order
        order = list(LABELS[key])
        rng.shuffle(order)
        templates.extend(order)
    name = templates[i].format_map(_Slots(rng, slots))
    for _ in range(3 if "{" in templates[i] else 0):
        if name not in used:
            break
        name = templates[i].format_map(_Slots(rng, slots))  # another draw of its slots
    slotted = [t for t in LABELS[key] if "{" in t]
    for _ in range(6 if name in used and slotted else 0):
        # its plain names are spent: one of its names with a person, a place or a number ("Haircut with Donna"),
        # never "Engineering Appointment", the caller's own label (seed 94's readers)
        name = rng.choice(slotted).format_map(_Slots(rng, slots))
        if name not in used:
            break
    if name in used:
        return None  # the kind's names are spent: the caller's own label, so a person tells rows apart
    used.add(name)
    return name


#: The slots `kind_label` fills itself, from the row's generator (`{first}`, `{city}`, ... come from the caller).
_OWN_SLOTS: dict[str, Callable[[_Slots], str]] = {
    "n": lambda s: str(s.rng.randint(1, 12)),
    "nn": lambda s: f"{s.rng.randint(1, 99):02d}",
    "nnnn": lambda s: f"{s.rng.randint(1000, 9999)}",
    "mm": lambda s: f"{s.rng.randint(1, 12):02d}",
    "day": lambda s: str(s.rng.randint(1, 28)),
    "letter": lambda s: s.rng.choice(_LETTERS),
    "hood": lambda s: s.rng.choice(_HOODS),
    "street": lambda s: f"{s.rng.randint(10, 999)} {s.rng.choice(_STREETS)}",
    "topic": lambda s: s.rng.choice(_TOPICS),
    "hash": lambda s: f"{s.rng.getrandbits(24):06x}",
    "repo": lambda s: s.rng.choice(_REPOS),
    "person": lambda s: f"{s['first']} {s['last']}",
    "first_lower": lambda s: s["first"].lower(),
    "last_lower": lambda s: s["last"].lower(),
    "team_slug": lambda s: s["team"].lower().replace(" ", "-"),
    "city_slug": lambda s: s["city"].lower().replace(" ", "-"),
    "company_slug": lambda s: "".join(ch for ch in s["company"].lower() if ch.isalnum())[:18],
}


class _Slots(dict):  # type: ignore[type-arg]
    """`str.format_map` slots made on first use (so a template draws only the values it shows)."""

    def __init__(self, rng: random.Random, makers: Mapping[str, Callable[[], str]]) -> None:
        super().__init__()
        self.rng, self.makers = rng, makers

    def __missing__(self, key: str) -> str:
        if key in self.makers:
            value = self.makers[key]()
        elif key in _OWN_SLOTS:
            value = _OWN_SLOTS[key](self)
        else:
            raise KeyError(key)
        self[key] = value
        return value
