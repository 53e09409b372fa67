"""The minimiser's rules for forms of personal values met out of sample (issue 11).

Each rule is about a form (a label before a colon, a sign-off after a dash, a plate or
postcode format, a word for "address" in a language), never about a value. The examples
are invented here; none comes from the egress corpus.
"""

from __future__ import annotations

from typing import Any

import pytest

from redaction.egress import MinimisingRedactor
from redaction.minimise import Minimiser, load_vocabulary


def assert_kept(minimiser: Minimiser, text: str, kept: list[str]) -> None:
    """Every term of ``kept`` is in what leaves for ``text``."""
    out = minimiser.minimise(text).text
    for term in kept:
        assert term in out, out


def assert_gone_and_kept(minimiser: Minimiser, text: str, gone: list[str], kept: list[str]) -> None:
    """No value of ``gone`` and every term of ``kept`` is in what leaves for ``text``."""
    out = minimiser.minimise(text).text
    for value in gone:
        assert value not in out, out
    assert_kept(minimiser, text, kept)


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Cardholder: MARTA OKONJO. Stripe checkout returns card_declined", ["MARTA", "OKONJO"]),
        ("Name on invoice: pieter de vries. Exact Online shows error 4011", ["pieter", "vries"]),
        ("Beneficiario: lucía fernández. Bizum 6.2 rechaza la transferencia", ["lucía"]),
        ("rosa lind here - Slack 4.36 crashes on Fedora 40", ["rosa", "lind"]),
        ("mark hill asked me to report that Zoom 5.17 freezes on Ubuntu", ["mark", "hill"]),
        ("Outlook 2021 keeps asking for the password. — sofia moreno", ["sofia", "moreno"]),
        ("La cuenta está a nombre de jorge salas y Bizum falla", ["jorge", "salas"]),
        ("Support ticket for 李建国: Outlook 2021 won't sync", ["李建国"]),
    ],
)
def test_names_in_labels_openings_and_sign_offs_are_dropped(
    minimiser: Minimiser, text: str, names: list[str]
) -> None:
    out = minimiser.minimise(text).text
    for name in names:
        assert name not in out, out


def test_a_function_word_of_another_language_is_a_name_here(minimiser: Minimiser) -> None:
    # "dan" is a Dutch function word ("then"); in an English question it is a name
    out = minimiser.minimise("Outlook 2021 crashes on start. Dan is away this week.").text
    assert "Dan" not in out and "Outlook 2021" in out


def test_a_term_that_is_a_name_goes_with_the_name_beside_it(minimiser: Minimiser) -> None:
    out = minimiser.minimise("The router is on macOS but the account is mine (Ruby Okafor).").text
    assert "Ruby" not in out and "Okafor" not in out and "macOS" in out


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Image name: nginx:1.25-alpine fails to pull", ["nginx:1.25-alpine"]),
        ("npm install 时出现 EACCES: permission denied", ["时出现", "EACCES"]),
        ("Support here: Jenkins 2.452 agents disconnect", ["Jenkins 2.452"]),
        ("Build fails on Debian 12 - Docker 25", ["Docker 25"]),
    ],
)
def test_look_alikes_of_those_forms_are_kept(
    minimiser: Minimiser, text: str, kept: list[str]
) -> None:
    assert_kept(minimiser, text, kept)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Write to luca punto verdi chiocciola example punto org please", "verdi"),
        ("Дата рождения 02.03.1977.", "1977"),
        ("Change my plate from 4DEF567 in the ChargePoint app", "4DEF567"),
        ("A placa ABC1D23 não aparece no app", "ABC1D23"),
        ("Η πινακίδα ΑΒΕ-1234 δεν εμφανίζεται", "1234"),  # noqa: RUF001
        ("車のナンバー「横浜 500 さ 12-34」を登録できません", "12-34"),
        ("The lock at 3 Quay Road, Cobh, Co. Kerry V92 AB3C is offline", "Quay"),
        ("Ship it to Flat 2, 7 Oak Row, York YO1 7HH. The Pi 5 fails", "Flat 2"),
        ("Leveransadress Kungsgatan 3, lgh 1203, 123 45 Uppsala. Tack", "Kungsgatan"),
        ("Name: Jo, address ul. Polna 17/4, 00-950 Warszawa. Allegro", "17/4"),
        ("Η διεύθυνσή μου είναι Πατησίων 10, 104 34 Αθήνα", "Πατησίων"),  # noqa: RUF001
        ("הכתובת שלי היא רחוב הגפן 12, דירה 3", "12"),
        ("Địa chỉ giao hàng 5 Ngõ 12 Phố Nhà Thờ bị lỗi", "Nhà"),
        ("Invoice for customer ref Q-20417-ZB has the wrong VAT", "Q-20417-ZB"),
        ("The export lists account code BERG002 twice", "BERG002"),
        ("My account on example.org is lena.sun.1990.", "lena.sun.1990"),
        ("Die Mitgliedsnummer 004417 wird nicht erkannt", "004417"),
        ("اسم المستخدم: omar_lx في التطبيق", "omar_lx"),
        ("The login anna.berg.1987 cannot sign in to Jira", "anna.berg.1987"),
    ],
)
def test_values_in_these_forms_never_leave(minimiser: Minimiser, text: str, secret: str) -> None:
    assert secret not in minimiser.minimise(text).text


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("The error code is 0x80070005 on Windows 11, says the customer", ["0x80070005"]),
        ("My account on GitHub is locked after 2FA", ["GitHub", "locked"]),
        ("pytest: the test suite 3 fails on Unit 4 of the course", ["suite", "Unit"]),
        ("node_exporter on ubuntu_22 with python3.12 and x86_64", ["node_exporter", "x86_64"]),
        ("ISO 8859-1 text in Windows 11 23H2 build 22631", ["22631", "23H2"]),
    ],
)
def test_technical_look_alikes_of_these_forms_are_kept(
    minimiser: Minimiser, text: str, kept: list[str]
) -> None:
    assert_kept(minimiser, text, kept)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (
            "nginx --bind 0.0.0.0 and CACHE_URL=redis://127.0.0.1:6379/1",
            ["0.0.0.0", "127.0.0.1"],
        ),
        (
            "allow 10.20.0.0/16 and 198.51.100.0/24 in the firewall",
            ["10.20.0.0/16", "198.51.100.0/24"],
        ),
        ("Windows 10 build 19045.4170 with Teams version 23320.3021.2567.4799", ["19045.4170"]),
        ("MariaDB says ERROR 1698 (28000) for root", ["1698 (28000)"]),
        (
            "pinned to debian@sha256:9b1d42c0f7e2a6b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f70819",
            ["sha256"],
        ),
        (
            "request ID 3f2b8c1e-9d4a-4b6e-8f0a-1c2d3e4f5a6b failed",
            ["3f2b8c1e-9d4a-4b6e-8f0a-1c2d3e4f5a6b"],
        ),
        ("set fetch.max.wait.ms=250000 on the consumer", ["fetch.max.wait.ms=250000"]),
    ],
)
def test_loopback_networks_builds_and_digests_are_kept(
    minimiser: Minimiser, text: str, kept: list[str]
) -> None:
    assert_kept(minimiser, text, kept)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("My public IP is 203.0.113.61, Plex says unreachable", "203.0.113.61"),
        ("whitelist 198.51.100.9/32 for my laptop", "198.51.100.9"),
        ("the profile has user_id=4821337 in the URL", "4821337"),
        ("customer ID 3f2b8c1e-9d4a-4b6e-8f0a-1c2d3e4f5a6b cannot log in", "3f2b8c1e"),
    ],
)
def test_public_addresses_and_personal_numbers_still_never_leave(
    minimiser: Minimiser, text: str, secret: str
) -> None:
    assert secret not in minimiser.minimise(text).text


def test_presidio_is_told_loopback_and_networks_are_safe(minimiser: Minimiser) -> None:
    assert minimiser.vouches("IP_ADDRESS", "127.0.0.1")
    assert minimiser.vouches("IP_ADDRESS", "::1")
    assert minimiser.vouches("PHONE_NUMBER", "203.0.113.0/24")
    assert not minimiser.vouches("IP_ADDRESS", "203.0.113.7")
    assert not minimiser.vouches("IP_ADDRESS", "203.0.113.7/32")


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("ssh to 10.0.4.12 fails", "10.0.4.12"),
        ("ping fe80::1ff:fe23:4567:890a times out", "fe80::1ff:fe23:4567:890a"),
        ("the host 10.1.4.7/16 is unreachable", "10.1.4.7"),
    ],
)
def test_private_host_addresses_are_internal_identifiers_and_stay_in(
    redactor: Any, text: str, address: str
) -> None:
    # The whole egress path: the minimiser no longer vouches for them, so Presidio removes
    # what the minimiser kept. `redactor` is the session Presidio fixture (tests/conftest.py).
    egress = MinimisingRedactor(redactor, vocabulary=load_vocabulary())
    assert address not in egress.redact(text).search_text


def test_closed_compounds_of_known_words_are_kept_and_names_run_together_are_not(
    minimiser: Minimiser,
) -> None:
    out = minimiser.minimise(
        "run manage.py migratestatus, then check include/zlibversion.h and the sshpublickey"
    ).text
    assert "include/zlibversion.h" in out and "sshpublickey" in out, out
    for login in ("peterjones", "luciagomez", "marklewis"):
        assert login not in minimiser.minimise(f"the login {login} cannot sign in").text


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Zorbix Media Server 4.2 fails to scan the library", ["Zorbix Media Server 4.2"]),
        ('the log says "Failed to open Vulkan device" on start', ["Vulkan"]),
        ("dnf fails for repo 'baseos' on the mirror", ["repo"]),
    ],
)
def test_product_names_quoted_words_and_common_words_after_for_are_kept(
    minimiser: Minimiser, text: str, kept: list[str]
) -> None:
    assert_kept(minimiser, text, kept)


def test_a_name_before_a_product_and_after_for_still_goes(minimiser: Minimiser) -> None:
    out = minimiser.minimise("Nowak Media Server 4.2 fails to scan the library").text
    assert "Nowak" not in out
    assert "nowak" not in minimiser.minimise("please reset the password for anna nowak").text


def test_compressed_ipv6_host_addresses_are_dropped_and_their_look_alikes_kept(
    minimiser: Minimiser,
) -> None:
    out = minimiser.minimise("ping fe80::1ff:fe23:4567:890a and 2001:db8::7 time out").text
    assert "fe80" not in out and "2001:db8" not in out, out
    assert_kept(minimiser, "bind :: and ::1 at 12:30:45 with std::vector", ["::1", "12:30:45"])
    assert_kept(minimiser, "std::vector<int> fails to compile", ["std::vector"])


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        # an English street word after the street's name and a house number
        ("Lyft drops me at 3120 Elm Grove Blvd, Tulsa every time", ["3120", "Grove"]),
        ("UPS lost the parcel for 61 Wren St Unit 2, Salem", ["61", "Wren"]),
        ("send it to 9 w 14th st and Stripe rejects the zip", ["9", "14th"]),
        # a post-office box before its number
        ("Mail goes to P.O. Box 7781, Reno and Xero rejects it", ["7781"]),
        ("Bitte an Postfach 44 01 22 schicken, SAP meldet Fehler", ["44"]),
        ("Enviar al Apartado de Correos 3391 de Vigo, falla Holded", ["3391"]),
        ("Antwoordnummer? Nee: Postbus 5512, Zwolle. Exact Online faalt", ["5512"]),
        # a German street preposition inside a sentence, and German street-name endings
        ("Wir sind jetzt Am Lindenhof 7 gemeldet, Telekom findet nichts", ["Lindenhof", "7"]),
        ("Die Adresse lautet An der Mühle 12, Vodafone sagt ungültig", ["Mühle", "12"]),
        ("Paket an Parkallee 19 und Sonnenstr. 4a kommt nicht an", ["19", "Sonnenstr", "4a"]),
        # street words of more languages, and abbreviations that do not end the clause
        ("Mon colis pour 7 impasse des Roses, Nantes est bloqué", ["7", "Roses"]),
        ("Entrega en Paseo del Prado 21, Madrid falla en Glovo", ["Prado", "21"]),
        ("Dostawa na pl. Wolności 3, Poznań nie działa", ["Wolności", "3"]),
        ("Consegna in Vicolo Stretto 4 non riuscita su Amazon", ["Stretto", "4"]),
        # Chinese, Japanese and Korean addresses, and Japanese ones in Latin letters
        ("〒060-0001 北海道札幌市中央区北1条西2-1 に届きません", ["060-0001", "2-1"]),
        ("名古屋市中区栄3丁目5番1号 の荷物が追跡できない", ["名古屋市中区栄", "5"]),
        ("收货地址 上海市浦东新区世纪大道100号 无法保存", ["100"]),
        ("배송지가 서울특별시 마포구 월드컵로 212 인데 오류가 납니다", ["월드컵로", "212"]),
        ("Deliver to 4-2-8 Shiba, Minato-ku, Tokyo please, Rakuten fails", ["4-2-8", "Shiba"]),
    ],
)
def test_addresses_in_more_forms_never_leave(
    minimiser: Minimiser, text: str, secrets: list[str]
) -> None:
    out = minimiser.minimise(text).text
    for secret in secrets:
        assert secret not in out.split() and secret not in out, out


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Street Fighter 6 crashes on Steam Deck with Proton 9.0", ["Fighter 6", "Proton 9.0"]),
        ("Google Drive for desktop 85.0 is stuck on sync", ["Drive", "85.0"]),
        ("Road to 1.0: Bevy 0.13 changes the ECS scheduler", ["Bevy 0.13"]),
        ("Ring 0 and Ring 3 on Zen 4 with SYSCALL", ["Ring 0", "Ring 3"]),
        ("In Chrome 124 the Box 2 widget is blank", ["Chrome 124"]),
        ("Im Modus 3 stürzt Excel 2021 ab", ["Modus", "3", "Excel 2021"]),
    ],
)
def test_street_words_in_product_names_are_kept(
    minimiser: Minimiser, text: str, kept: list[str]
) -> None:
    assert_kept(minimiser, text, kept)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Numéro d'abonné 77A0412 : Free Mobile ne marche pas", "77A0412"),
        ("Mi número de socio es X-7731 y la app falla", "X-7731"),
        ("Tessera n. 4410-BQ rifiutata da Esselunga", "4410-BQ"),
        ("Numer klienta 5520-11-KR nie działa w Orange", "5520-11-KR"),
        ("Subscriber 8812-0041-ZT sees error 2F4 in Sky Go", "8812-0041-ZT"),
        ("Kundenkonto B-44120 ist bei Zalando gesperrt", "B-44120"),
        ("Kundennr. Q-55871: die App zeigt Fehler 1200", "Q-55871"),
        ("Hesap numaram 8812-55C, Trendyol göstermiyor", "8812-55C"),
        ("Per contratto 7731/2022 la fattura Enel è vuota", "7731/2022"),
        ("Номер договора 55-1011/24, личный кабинет не открывается", "55-1011/24"),
    ],
)
def test_codes_after_account_cues_in_more_languages_never_leave(
    minimiser: Minimiser, text: str, secret: str
) -> None:
    assert secret not in minimiser.minimise(text).text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("E-ZPass billed XKR-4471 twice this month", "XKR-4471"),
        ("Sem Parar não reconhece BRA-2E19 no app", "BRA-2E19"),
        ("Paytm FASTag fails for DL 8C AF 5521 again", "5521"),
        ("Paytm FASTag fails for KA05MN7731 again", "KA05MN7731"),
        ("Auto KRA 7H21 nie działa w SkyCash", "7H21"),
        ("Bilen NMK 42T syns inte i EasyPark", "42T"),
        ("ASFINAG links G 44120 B to no Vignette", "44120"),
        ("Авто КА 7731 ВХ не додається в застосунок", "7731"),  # noqa: RUF001
        ("Машина Е777КХ 199 не добавляется в приложение", "Е777КХ"),  # noqa: RUF001
        ("车牌 粤B·D1234 在小程序里绑定失败", "D1234"),
    ],
)
def test_plates_in_more_national_formats_never_leave(
    minimiser: Minimiser, text: str, secret: str
) -> None:
    assert secret not in minimiser.minimise(text).text


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("GTX 1080 and RTX 4090 with CUDA 12.4", ["GTX 1080", "RTX 4090"]),
        ("Ryzen 9 7950X or Xeon 6430 for builds", ["7950X", "Xeon 6430"]),
        ("Event ID 4625 and ISO 27001 audits", ["ID 4625", "ISO 27001"]),
        ("ECMA-262 and CVE-2024-3094 and ORA-12514", ["ECMA-262", "CVE-2024-3094"]),
        ("Pact contract testing with consumer contract version 4.0.1", ["version 4.0.1"]),
    ],
)
def test_model_numbers_and_standards_shaped_like_plates_or_accounts_are_kept(
    minimiser: Minimiser, text: str, kept: list[str]
) -> None:
    assert_kept(minimiser, text, kept)


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("van der Berg, Anouk cannot open Teams", ["van", "der"]),
        ("de la Fuente, Inés reports Slack 4.36 crashes", ["de", "la", "Fuente"]),
        ("Ticket raised by mehmet yılmazoğlu about Outlook", ["mehmet", "yılmazoğlu"]),  # noqa: RUF001
    ],
)
def test_particles_and_lower_case_surnames_go_with_the_name(
    minimiser: Minimiser, text: str, names: list[str]
) -> None:
    out = minimiser.minimise(text).text.split()
    for name in names:
        assert name not in out, out


def test_an_address_clause_ends_at_a_conjunction(minimiser: Minimiser) -> None:
    out = minimiser.minimise(
        "Couriers miss 14 Harrow Lane, Leeds because the Shopify pin is off"
    ).text
    assert "Harrow" not in out and "14" not in out.split(), out
    assert "Shopify pin" in out, out


@pytest.mark.parametrize(
    ("text", "gone", "kept"),
    [
        # a function word that is a name, capitalised mid-sentence, names someone
        (
            "The failing job belongs to Will and Jenkins 2.440 skips it.",
            ["Will"],
            ["Jenkins 2.440"],
        ),
        ("Will Terraform 1.7 accept this provider block?", [], ["Will", "Terraform 1.7"]),
        # a lone quoted word is no error message: a quoted nickname goes
        ("The webhook was made by Ann 'Liz' Okoro and Discord returns 401.", ["Liz"], ["Discord"]),
        ("Windows says 'Can't reach this page' after KB5034441.", [], ["Can't reach this page"]),
        # an initial joined to a surname is a login
        ("Bitbucket denies push for r-oyelaran on Git 2.45.", ["r-oyelaran"], ["Bitbucket"]),
    ],
)
def test_names_in_function_words_lone_quotes_and_initial_logins(
    minimiser: Minimiser, text: str, gone: list[str], kept: list[str]
) -> None:
    assert_gone_and_kept(minimiser, text, gone, kept)


@pytest.mark.parametrize(
    ("text", "gone", "kept"),
    [
        # after a word for "number", a value may come two words later
        ("Mi número de socio es SC-40917 y Moodle 4.1 falla.", ["SC-40917", "40917"], ["Moodle"]),
        ("رقم العميل 552093 و Outlook 2019 لا يعمل", ["552093"], ["Outlook 2019"]),
        ("My member number is 4471902 and Moodle 4.3 logs me out.", ["4471902"], ["Moodle 4.3"]),
        # a UK National Insurance number, spaced or not
        ("HMRC rejects AB 98 76 54 D and XY987654B as invalid.", ["98 76 54", "987654"], ["HMRC"]),
        # digits read out in words
        (
            "Call me on four one five, two two two, nine eight seven six about Teams.",
            ["nine eight seven six"],
            ["Teams"],
        ),
        # a document number that shifts between letters and digits
        (
            "The airline rejects document D7K2M9P4Q at check-in, error 4012.",
            ["D7K2M9P4Q"],
            ["check-in", "error 4012"],
        ),
        (
            "Address in Greek: Διεύθυνση: Οδός Αθηνάς 14, Πάτρα. Teams crashes.",
            ["Αθηνάς", "14"],
            ["Teams"],
        ),
        (
            "I live at forty Oak Avenue, flat two, Leeds, and Sky Q shows error 11.",
            ["Oak", "Leeds"],
            ["Sky"],
        ),
        (
            "Our van 2BC 4567 is missing in the fleet app since Android 14.",
            ["2BC 4567"],
            ["fleet app", "Android 14"],
        ),
    ],
)
def test_values_two_words_after_a_number_cue_spelled_out_or_shifting_never_leave(
    minimiser: Minimiser, text: str, gone: list[str], kept: list[str]
) -> None:
    assert_gone_and_kept(minimiser, text, gone, kept)


@pytest.mark.parametrize(
    "text",
    [
        "Samsung SM-G991B and the RTX4090 box both fail the KB5034441 update.",
        "Error number 3 in step two of the wizard, then one more retry.",
    ],
)
def test_model_codes_and_a_few_number_words_are_kept(minimiser: Minimiser, text: str) -> None:
    out = minimiser.minimise(text).text
    for term in ("RTX4090", "SM-G991B", "KB5034441", "wizard", "retry"):
        if term in text:
            assert term in out, out


@pytest.mark.parametrize(
    ("text", "gone", "kept"),
    [
        # a name at the very start, before "again" or "writing", with a suffix
        ("faith okonkwo-bell again, Outlook 2021 still hangs.", ["faith", "okonkwo"], ["Outlook"]),
        ("mark anthony dobbs jr. writing. Zoom 6.0 drops audio.", ["mark", "anthony"], ["Zoom"]),
        # a user at a host, and a login named in an aside after it
        ("The lock says Who: tkarlsson@LAPTOP-9Z1Q, how do I clear it?", ["tkarlsson"], ["lock"]),
        (
            "ivo.brandt (my AD login) cannot map the drive with net use.",
            ["ivo.brandt"],
            ["net use"],
        ),
        ("it's wolf_rider (my Steam handle) and Proton 9 crashes.", ["wolf_rider"], ["Proton 9"]),
        # names joined by a slash in an airline booking, a surname in capitals in a file name
        ("Booking for MENDES/ANA LUISA fails in the app.", ["MENDES", "LUISA"], ["Booking"]),
        ("Calc 7.6 crashes on budget_final_FIGUEROA.ods files.", ["FIGUEROA"], ["Calc 7.6"]),
        # a chosen name after a word for it, a login with a name, two-word and Filipino cues
        (
            "Xbox error 0x87e10bef; gamer nickname MossyTurtleKing.",
            ["MossyTurtleKing"],
            ["0x87e10bef"],
        ),
        ("Akun Shopee saya dewi_k88 tidak bisa login di Android 13.", ["dewi_k88"], ["Android 13"]),
        ("Xin chào, hộ chiếu B7654321 bị từ chối trên VNeID.", ["B7654321"], ["VNeID"]),
        (
            "Magandang gabi, ako si Liza Santos, GCash app ko ay nag-crash.",
            ["Liza", "Santos"],
            ["GCash"],
        ),
        ("Nagsimula noong Marso 3, 1988 ang account ko sa GCash.", ["Marso 3, 1988"], ["GCash"]),
        ("微信号abcd_7x9k 登录失败", ["abcd_7x9k"], ["登录失败"]),
    ],
)
def test_round_five_forms_never_leave(
    minimiser: Minimiser, text: str, gone: list[str], kept: list[str]
) -> None:
    assert_gone_and_kept(minimiser, text, gone, kept)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("The VPN client GlobalProtect 6.1 says the gateway is down.", ["GlobalProtect 6.1"]),
        ("Keycloak 24: how do I keep user IDs stable across realms?", ["user IDs"]),
        ("npm i lodash@4.17.21 then ssh root@build-server fails", ["lodash@4.17.21"]),
        ("WeChat 微信 8.0.47 on iPhone fails to back up.", ["微信 8.0.47", "iPhone"]),
        ("ext4_fs and python3_12 both show up in the log", ["ext4_fs", "python3_12"]),
        ("Windows 11 2023 update and the 12 mod 2024 build", ["Windows 11 2023"]),
    ],
)
def test_round_five_look_alikes_are_kept(minimiser: Minimiser, text: str, kept: list[str]) -> None:
    assert_kept(minimiser, text, kept)


@pytest.mark.parametrize(
    ("text", "gone", "kept"),
    [
        # vendors' error codes are search terms, whatever their prefix
        (
            "CVE-2024-3094, ORA-12514, CS0246, TS2345 and C2065 after KB5034441 on an XPS 13 9340.",
            [],
            ["CVE-2024-3094", "ORA-12514", "CS0246", "TS2345", "C2065", "KB5034441", "XPS 13 9340"],
        ),
        (
            "Kafka ignores max.poll.interval.ms=300000 since 3.6.",
            [],
            ["max.poll.interval.ms=300000"],
        ),
    ],
)
def test_error_codes_and_settings_values_stay(
    minimiser: Minimiser, text: str, gone: list[str], kept: list[str]
) -> None:
    assert_gone_and_kept(minimiser, text, gone, kept)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        # found by a review of round 5's rules: each was dropped by a first version of them
        ("how to handle TypeError in async javascript", ["TypeError"]),
        ("AttributeError: 'Page' object has no attribute 'goto'", ["'Page'"]),
        ("what is the build number of Windows 11 23H2", ["Windows 11 23H2"]),
        ("version number of Python 3.12 on Debian", ["Python 3.12"]),
        ("old mode 100644 new mode 100755 in git diff", ["100644", "100755"]),
        ("npm install eslint-plugin-react@latest fails", ["eslint-plugin-react@latest"]),
        ("the May update broke Outlook and the Back button", ["May", "Back"]),
        ("sync fails on iPhone (my work phone) since iOS 17", ["iPhone"]),
        ("selenium returns null, null, null, null, null, null", ["null"]),
        ("compare 3 Mac 2020 machines for Xcode 15", ["Mac 2020"]),
    ],
)
def test_round_five_review_look_alikes_are_kept(
    minimiser: Minimiser, text: str, kept: list[str]
) -> None:
    assert_kept(minimiser, text, kept)


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        ("ο αριθμός διαβατηρίου μου είναι AK1234567 και η εφαρμογή κολλάει", ["AK1234567"]),  # noqa: RUF001
        ("ζω στην οδό Ερμού 25 Αθήνα και το Teams κολλάει", ["Ερμού", "25"]),
        ("call five oh three dash five five five dash zero one four two", ["zero one four two"]),
        ("HMRC rejects qq 12 34 56 c and QQ-12-34-56-C", ["12 34 56", "12-34-56"]),
        ("the prompt shows okwuosa@LAPTOP-3K9D:~$ after login", ["okwuosa"]),
        (
            "RDP refuses CORP\\tbaranski and LAPTOP-3K9D\\okwuosa since KB5034441",
            ["tbaranski", "okwuosa"],
        ),
    ],
)
def test_round_five_review_leaks_never_leave(
    minimiser: Minimiser, text: str, gone: list[str]
) -> None:
    assert_gone_and_kept(minimiser, text, gone, [])


def test_a_date_shape_is_linear_on_long_runs_of_punctuation(minimiser: Minimiser) -> None:
    import time

    started = time.perf_counter()
    minimiser.minimise("=" * 20_000)
    assert time.perf_counter() - started < 2.0  # 8 s with the first, unanchored pattern
