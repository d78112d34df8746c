// Package webhooks sends Lexora's events to teacher-registered HTTP
// endpoints, signed as the Standard Webhooks specification says
// (https://www.standardwebhooks.com): headers webhook-id, webhook-timestamp
// and webhook-signature, an HMAC-SHA256 over "id.timestamp.body" computed by
// the reference library github.com/standard-webhooks/standard-webhooks.
// The webhook-id is the event id, so a receiver can deduplicate retries.
package webhooks

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"golang.org/x/net/idna"

	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/platform/text"
)

// Config is the webhook part of the drain job's and functions' configuration.
type Config struct {
	// Timeout bounds one delivery attempt, connection to last byte.
	Timeout time.Duration `env:"WEBHOOK_TIMEOUT, default=10s"`
	// AllowHTTP accepts http:// endpoints and local addresses; only for
	// local development and tests. In production every endpoint must be
	// https:// on a public address.
	AllowHTTP bool `env:"WEBHOOK_ALLOW_HTTP"`
}

// NewSecret returns a fresh signing secret: "whsec_" and the base64 of 32
// random bytes, the format the reference libraries read.
func NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// ErrBadURL is returned by CheckURL and ASCIIHost.
var ErrBadURL = errors.New("webhook URL must be an absolute https:// URL without credentials, fragment, spaces or non-ASCII characters " +
	"(percent-encode them in the path and query; a host name in another script is taken in its punycode xn-- form, so it must be a valid IDNA name), " +
	"to a public host and a port from 1 to 65535")

// ASCIIHost returns raw with its host name, when that is not ASCII, in its
// IDNA form (UTS #46 lookup, RFC 5891: "bücher.example" becomes
// "xn--bcher-kva.example"), the rest of raw unchanged byte for byte; raw
// itself when its host is ASCII. It returns ErrBadURL for a URL that does
// not parse, a host with a control, format or separator character (which
// IDNA would silently drop, so the URL stored would not be the one seen)
// or a host IDNA refuses. Endpoints.Register calls it before CheckURL, so
// the URL checked, stored, shown and dialled is the ASCII one.
func ASCIIHost(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", ErrBadURL
	}
	host := u.Hostname()
	if !strings.ContainsFunc(host, func(r rune) bool { return r > unicode.MaxASCII }) {
		return raw, nil
	}
	if strings.ContainsFunc(host, func(r rune) bool { return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Z) }) {
		return "", ErrBadURL
	}
	ascii, err := idna.Lookup.ToASCII(host)
	at := strings.Index(raw, "//"+host)
	if err != nil || at < 0 {
		return "", ErrBadURL
	}
	at += len("//")
	return raw[:at] + ascii + raw[at+len(host):], nil
}

// CanonicalOrigin returns raw, a URL that CheckURL accepted, with its scheme
// and host in lower case, the scheme's default port (443 for https, 80 for
// http) and a host's trailing dot dropped, and the rest (path and query)
// byte for byte: "https://HOOKS.Example.com:443/h" becomes
// "https://hooks.example.com/h". Those spellings name one receiver (RFC 3986
// section 6.2.3), so Endpoints.Register stores this form and a second
// registration of the same receiver is refused as a duplicate.
func CanonicalOrigin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	authority := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if strings.Contains(authority, ":") {
		authority = "[" + authority + "]"
	}
	if port := u.Port(); port != "" && !(u.Scheme == "https" && port == "443") && !(u.Scheme == "http" && port == "80") {
		authority += ":" + port
	}
	start := strings.Index(raw, "//") + len("//")
	end := len(raw)
	if i := strings.IndexAny(raw[start:], "/?"); i >= 0 {
		end = start + i
	}
	return u.Scheme + "://" + authority + raw[end:]
}

// CheckURL validates an endpoint URL: absolute, https, a host, no user
// info, at most 2,000 characters, all of them printable ASCII without
// spaces (RFC 3986: anything else, such as a trailing space or U+200B in the
// path, must be percent-encoded by the sender, or it would be delivered to
// an address the teacher did not see), whose path and query, once
// percent-decoded, pass text.SingleLine (so %E2%80%8B, an encoded U+200B,
// is refused like the raw character), no fragment (it is never sent), a
// port, if given, from 1 to 65535, and a host that is either a public IP
// address in standard notation (see public) or a DNS name of at least two
// ASCII letter-digit-hyphen labels (RFC 1123; internationalised names in
// their xn-- form) whose last label is not numeric, and not a local name
// (localhost, *.localhost, *.internal), without a trailing dot (the
// absolute form of a name is another spelling of the same host). So
// shorthand IPv4 such as 127.1, 2130706433 or 0x7f.1, which resolvers read
// as addresses, and Unicode look-alikes are refused at registration.
// allowLocal (development only, WEBHOOK_ALLOW_HTTP) accepts http:// and lifts
// every host rule: any host that parses, including loopback, private and
// link-local (metadata) addresses, localhost and *.internal names, and a
// trailing dot; the character, fragment and port rules still hold. The Sender checks the resolved
// address again when it dials, since a name may resolve elsewhere later.
func CheckURL(raw string, allowLocal bool) error {
	u, err := url.Parse(raw)
	if err != nil || len(raw) > 2000 || u.Host == "" || u.User != nil || strings.ContainsFunc(raw, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
		return ErrBadURL
	}
	if u.Scheme != "https" && !(allowLocal && u.Scheme == "http") {
		return ErrBadURL
	}
	query, err := url.QueryUnescape(u.RawQuery)
	if err != nil || !text.SingleLine(u.Path) || !text.SingleLine(query) || strings.Contains(raw, "#") {
		return ErrBadURL
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return ErrBadURL
		}
	}
	if allowLocal {
		return nil
	}
	h := strings.ToLower(u.Hostname())
	if ip, err := netip.ParseAddr(h); err == nil {
		if !public(ip) {
			return ErrBadURL
		}
		return nil
	}
	if !dnsName(h) || h == "localhost" || strings.HasSuffix(h, ".localhost") || strings.HasSuffix(h, ".internal") {
		return ErrBadURL
	}
	return nil
}

// dnsName reports whether h is a lower-case DNS name of two or more labels
// of ASCII letters, digits and inner hyphens, at most 63 bytes each, whose
// last label has a letter (numeric last labels are how IPv4 shorthand
// looks).
func dnsName(h string) bool {
	labels := strings.Split(h, ".")
	if len(h) > 253 || len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, c := range []byte(l) {
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return strings.ContainsAny(labels[len(labels)-1], "abcdefghijklmnopqrstuvwxyz") &&
		!strings.HasPrefix(labels[len(labels)-1], "0x")
}

// nonPublic lists the address blocks that must not receive webhooks: the
// entries of the IANA IPv4 and IPv6 Special-Purpose Address Registries
// (RFC 6890, updated by later RFCs) that are not globally reachable or are
// reserved for documentation and benchmarking, plus multicast (IANA
// multicast address registries). IPv4-mapped, IPv4-compatible, NAT64 and
// 6to4 addresses are judged by the IPv4 address they embed (see
// embeddedIPv4), and IPv6 outside 2000::/3 is refused as unassigned.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network" (RFC 791)
	netip.MustParsePrefix("10.0.0.0/8"),      // private (RFC 1918)
	netip.MustParsePrefix("100.64.0.0/10"),   // shared address space, carrier NAT (RFC 6598)
	netip.MustParsePrefix("127.0.0.0/8"),     // loopback (RFC 1122)
	netip.MustParsePrefix("169.254.0.0/16"),  // link-local, cloud metadata (RFC 3927)
	netip.MustParsePrefix("172.16.0.0/12"),   // private (RFC 1918)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments (RFC 6890)
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation TEST-NET-1 (RFC 5737)
	netip.MustParsePrefix("192.88.99.0/24"),  // deprecated 6to4 relay anycast (RFC 7526)
	netip.MustParsePrefix("192.168.0.0/16"),  // private (RFC 1918)
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking (RFC 2544)
	netip.MustParsePrefix("198.51.100.0/24"), // documentation TEST-NET-2 (RFC 5737)
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation TEST-NET-3 (RFC 5737)
	netip.MustParsePrefix("224.0.0.0/4"),     // multicast (RFC 5771)
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and broadcast 255.255.255.255 (RFC 1112, RFC 919)

	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64 (RFC 8215), not globally reachable
	netip.MustParsePrefix("100::/64"),       // discard-only (RFC 6666)
	netip.MustParsePrefix("2001::/23"),      // IETF protocol assignments, incl. Teredo 2001::/32 (RFC 2928, RFC 4380)
	netip.MustParsePrefix("2001:db8::/32"),  // documentation (RFC 3849)
	netip.MustParsePrefix("3fff::/20"),      // documentation (RFC 9637)
	netip.MustParsePrefix("fc00::/7"),       // unique local (RFC 4193)
	netip.MustParsePrefix("fe80::/10"),      // link-local (RFC 4291)
	netip.MustParsePrefix("ff00::/8"),       // multicast (RFC 4291)
}

var (
	ipv6Global = netip.MustParsePrefix("2000::/3")     // global unicast (RFC 4291); the rest is unassigned or special
	v4Compat   = netip.MustParsePrefix("::/96")        // IPv4-compatible, deprecated (RFC 4291), also :: and ::1
	nat64      = netip.MustParsePrefix("64:ff9b::/96") // NAT64 well-known prefix (RFC 6052)
	sixToFour  = netip.MustParsePrefix("2002::/16")    // 6to4 (RFC 3056)
)

// public reports whether ip may receive webhooks: not in a nonPublic block,
// and, for an IPv6 address embedding an IPv4 one, that IPv4 address public
// too.
func public(ip netip.Addr) bool {
	ip = ip.WithZone("") // Prefix.Contains never matches a zoned address
	if v4, ok := embeddedIPv4(ip); ok {
		ip = v4
	}
	if !ip.IsValid() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	return ip.Is4() || ipv6Global.Contains(ip)
}

// embeddedIPv4 returns the IPv4 address that an IPv4-mapped,
// IPv4-compatible, NAT64 (64:ff9b::/96) or 6to4 IPv6 address carries, which
// is where packets to it end up.
func embeddedIPv4(ip netip.Addr) (netip.Addr, bool) {
	b := ip.As16()
	switch {
	case ip.Is4In6():
		return ip.Unmap(), true
	case v4Compat.Contains(ip), nat64.Contains(ip):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixToFour.Contains(ip):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return ip, false
}

// Message is what an endpoint receives: the Standard Webhooks payload
// structure, with the event's own payload as data.
type Message struct {
	Type      string          `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// Sender posts signed messages.
type Sender struct {
	client *http.Client
	clock  clock.Clock
}

// NewSender returns a Sender whose attempts time out after cfg.Timeout,
// whose signatures are timestamped by c, and which, unless cfg.AllowHTTP
// (development), refuses to connect to non-public addresses whatever a name
// resolves to.
func NewSender(cfg Config, c clock.Clock) *Sender {
	dialer := &net.Dialer{Timeout: cfg.Timeout}
	if !cfg.AllowHTTP {
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !public(ap.Addr()) {
				return fmt.Errorf("webhook: refusing to connect to %w %s", errNonPublic, address)
			}
			return nil
		}
	}
	base, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		panic(fmt.Sprintf("webhooks: http.DefaultTransport is a %T, not the standard library's *http.Transport", http.DefaultTransport))
	}
	transport := base.Clone()
	transport.DialContext = dialer.DialContext
	transport.Proxy = nil
	return &Sender{clock: c, client: &http.Client{Timeout: cfg.Timeout, Transport: transport,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse // a redirect is an answer, not an instruction
		}}}
}

// Send posts m to endpointURL under msgID, signed with each of secrets (at
// least one; during a secret rotation the new one and the previous one, as
// space-separated signatures the receiver may check with either), and
// returns the receiver's status code. An error means no status was received
// (network failure, timeout, invalid or no secret).
func (s *Sender) Send(ctx context.Context, endpointURL string, secrets []string, msgID string, m Message) (int, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return 0, fmt.Errorf("webhook: encode message: %w", err)
	}
	if len(secrets) == 0 {
		return 0, errors.New("webhook: no signing secret")
	}
	now := s.clock.Now()
	sigs := make([]string, len(secrets))
	for i, secret := range secrets {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			return 0, fmt.Errorf("webhook: secret: %w", err)
		}
		if sigs[i], err = wh.Sign(msgID, now, body); err != nil {
			return 0, fmt.Errorf("webhook: sign: %w", err)
		}
	}
	sig := strings.Join(sigs, " ")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpointURL, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("webhook: request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Lexora-Webhooks/1")
	req.Header.Set("webhook-id", msgID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	req.Header.Set("webhook-signature", sig)
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("webhook: post to %s: %w", redact(endpointURL), err)
	}
	// The answer is the status. The body is drained so that the connection
	// can be reused; an error reading or closing it changes no outcome.
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, nil
}

// errNonPublic is why the Sender refused to connect to an address.
var errNonPublic = errors.New("non-public address")

// Reason says in a few words, for the endpoint's teacher, why Send failed
// to get a status: "timed out after 10s" (the Sender's timeout, or the
// caller's context ending), "connection refused", "connection reset",
// "host not found", "refused: the host is not a public address"; otherwise
// the failure without the request's URL (a TLS one says "tls: …").
func (s *Sender) Reason(err error) string {
	var dnsErr *net.DNSError
	var urlErr *url.Error
	var netErr net.Error
	switch {
	case errors.Is(err, errNonPublic):
		return "refused: the host is not a public address"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Sprintf("timed out after %s", s.client.Timeout)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection reset"
	case errors.As(err, &dnsErr):
		return "host not found"
	case errors.As(err, &urlErr):
		return urlErr.Err.Error()
	}
	return err.Error()
}

// redact keeps a URL's scheme and host, so that tokens in paths or queries
// do not reach the logs.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(invalid URL)"
	}
	return u.Scheme + "://" + u.Host + "/…"
}
