package redact

import "strings"

// Passwords given to well-known clients as a short option: the assignment
// rule finds --password value and PASSWORD=..., but a client's own option
// letter names nothing, so only the client's name says what it carries:
//
//	mysql -u app -phunter2 shop       mysql, mariadb and their tools: -p glued
//	sshpass -p hunter2 ssh host       sshpass, mongo*: -p
//	redis-cli -a hunter2              redis-cli, valkey-cli: -a
//	curl -u bob:hunter2 URL           curl: -u, --user, the part after ':'
//	smbclient -U bob%hunter2          smbclient: -U, the part after '%'
//	lftp -u bob,hunter2 host          lftp: -u, the part after ','
//	sqlcmd -P hunter2                 sqlcmd, bcp: -P
//	ldapsearch -w hunter2             OpenLDAP's tools: -w
//	zip -P hunter2, 7z -phunter2      archivers
//	openssl ... -passin pass:hunter2  openssl: the part after "pass:"
//	docker login -p hunter2           registry logins: -p after "login"
//
// The option is taken only on the client's line, after its name: "-p" is
// a port to docker run and a parent to mkdir. A value that is a variable
// ($DB_PASS), a placeholder or a prompt (mysql -p alone asks) is kept.

// cmdOption is one option of a client that carries a password.
type cmdOption struct {
	name     string
	glued    bool   // -phunter2
	separate bool   // -p hunter2
	after    byte   // the secret is the part after this byte (0: all of it)
	prefix   string // the secret follows this prefix ("pass:"); other forms are names
	login    bool   // only after the word "login" (docker login -p)
}

var (
	mysqlOptions  = []cmdOption{{name: "-p", glued: true}}
	sshpassOpts   = []cmdOption{{name: "-p", glued: true, separate: true}}
	redisOptions  = []cmdOption{{name: "-a", glued: true, separate: true}, {name: "--pass", separate: true}}
	curlOptions   = []cmdOption{{name: "-u", glued: true, separate: true, after: ':'}, {name: "--user", separate: true, after: ':'}, {name: "--proxy-user", separate: true, after: ':'}, {name: "-U", glued: true, separate: true, after: ':'}}
	smbOptions    = []cmdOption{{name: "-U", glued: true, separate: true, after: '%'}, {name: "--user", separate: true, after: '%'}}
	lftpOptions   = []cmdOption{{name: "-u", separate: true, after: ','}}
	sqlcmdOptions = []cmdOption{{name: "-P", glued: true, separate: true}}
	ldapOptions   = []cmdOption{{name: "-w", separate: true}}
	zipOptions    = []cmdOption{{name: "-P", separate: true}}
	sevenZOptions = []cmdOption{{name: "-p", glued: true}}
	opensslOpts   = []cmdOption{{name: "-passin", separate: true, prefix: "pass:"}, {name: "-passout", separate: true, prefix: "pass:"}, {name: "-pass", separate: true, prefix: "pass:"}, {name: "-k", separate: true}}
	loginOptions  = []cmdOption{{name: "-p", separate: true, login: true}}
)

// clients maps a client's name to its options that carry a password.
var clients = map[string][]cmdOption{
	"mysql": mysqlOptions, "mysqldump": mysqlOptions, "mysqladmin": mysqlOptions, "mysqlimport": mysqlOptions,
	"mysqlcheck": mysqlOptions, "mysqlsh": mysqlOptions, "mysqlpump": mysqlOptions, "mysqlbinlog": mysqlOptions,
	"mysqlslap": mysqlOptions, "mariadb": mysqlOptions, "mariadb-dump": mysqlOptions, "mariadb-admin": mysqlOptions,
	"mariadb-import": mysqlOptions, "mariadb-check": mysqlOptions,
	"sshpass": sshpassOpts,
	"mongo":   sshpassOpts, "mongosh": sshpassOpts, "mongodump": sshpassOpts, "mongorestore": sshpassOpts,
	"mongoexport": sshpassOpts, "mongoimport": sshpassOpts,
	"redis-cli": redisOptions, "valkey-cli": redisOptions, "keydb-cli": redisOptions,
	"curl": curlOptions, "smbclient": smbOptions, "rpcclient": smbOptions, "lftp": lftpOptions,
	"sqlcmd": sqlcmdOptions, "bcp": sqlcmdOptions,
	"ldapsearch": ldapOptions, "ldapadd": ldapOptions, "ldapmodify": ldapOptions, "ldapdelete": ldapOptions,
	"ldapwhoami": ldapOptions, "ldappasswd": ldapOptions, "ldapcompare": ldapOptions, "ldapmodrdn": ldapOptions,
	"zip": zipOptions, "unzip": zipOptions, "zipcloak": zipOptions, "7z": sevenZOptions, "7za": sevenZOptions, "7zr": sevenZOptions,
	"openssl": opensslOpts,
	"docker":  loginOptions, "podman": loginOptions, "buildah": loginOptions, "skopeo": loginOptions,
	"helm": loginOptions, "oras": loginOptions, "az": loginOptions,
}

// maxCmdLine bounds how far back an option looks for its client's name.
const maxCmdLine = 512

// cmdPasswords adds an edit for each password given to a client in s. It
// looks at each '-' that starts a word, then back along the line for the
// client.
func cmdPasswords(edits []edit, s string) []edit {
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '-')
		if j < 0 {
			break
		}
		j += i
		i = j + 1
		if j+1 >= len(s) || (j > 0 && !isSpace(s[j-1])) || !isAlpha(s[j+1]) && s[j+1] != '-' {
			continue
		}
		if !optionLetter(s, j) {
			continue
		}
		end := wordEnd(s, j)
		opts, login := clientBefore(s, j)
		if opts == nil {
			continue
		}
		if e, ok := optionValue(s, j, end, opts, login); ok {
			edits = append(edits, e)
			i = max(i, e.end)
		}
	}
	return edits
}

// optionLetter says the word at s[j] ('-') may be one of the clients'
// options, by its first letters: most options are not, and the look back
// for the client is left out for them.
func optionLetter(s string, j int) bool {
	switch s[j+1] {
	case 'p', 'a', 'u', 'U', 'P', 'w', 'k':
		return true
	case '-':
		return j+2 < len(s) && (s[j+2] == 'p' || s[j+2] == 'u')
	}
	return false
}

// wordEnd returns the end of the word that starts at s[i]: the next blank.
func wordEnd(s string, i int) int {
	for i < len(s) && !isSpace(s[i]) {
		i++
	}
	return i
}

// clientBefore finds the client whose option s[j] is: the words before it
// on its line, back to a shell separator (| ; & ( or a backquote). It also
// says whether "login" is among them.
func clientBefore(s string, j int) ([]cmdOption, bool) {
	start := max(0, j-maxCmdLine)
	for k := j - 1; k >= start; k-- {
		if c := s[k]; c == '\n' || c == '|' || c == ';' || c == '&' || c == '(' || c == '`' {
			start = k + 1
			break
		}
	}
	var opts []cmdOption
	login := false
	for k := start; k < j; {
		for k < j && (isSpace(s[k]) || isQuote(s[k])) {
			k++
		}
		e := k
		for e < j && !isSpace(s[e]) {
			e++
		}
		w := strings.Trim(s[k:e], "\"'`")
		if slash := strings.LastIndexByte(w, '/'); slash >= 0 {
			w = w[slash+1:]
		}
		if o, ok := clients[w]; ok && opts == nil {
			opts = o
		} else if w == "login" {
			login = true
		}
		k = e
	}
	return opts, login
}

// optionValue returns the edit for the password the option word
// s[j:end] carries, glued or in the next word.
func optionValue(s string, j, end int, opts []cmdOption, login bool) (edit, bool) {
	word := s[j:end]
	for _, o := range opts {
		if o.login && !login || !strings.HasPrefix(word, o.name) {
			continue
		}
		vs, ve := -1, -1
		switch rest := word[len(o.name):]; {
		case rest == "" && o.separate:
			vs = j + len(word)
			for vs < len(s) && (s[vs] == ' ' || s[vs] == '\t') {
				vs++
			}
			ve = wordEnd(s, vs)
		case rest == "":
		case rest[0] == '=' && strings.HasPrefix(o.name, "--"):
			vs, ve = end-len(rest)+1, end
		case o.glued && !strings.HasPrefix(o.name, "--"):
			vs, ve = j+len(o.name), end
		}
		if vs < 0 || vs >= ve {
			continue
		}
		if e, ok := secretPart(s, vs, ve, o); ok {
			return e, true
		}
	}
	return edit{}, false
}

// secretPart returns the edit for the secret in the value s[vs:ve]: its
// quotes, a user name before it and a trailing punctuation stay.
func secretPart(s string, vs, ve int, o cmdOption) (edit, bool) {
	if q := s[vs]; isQuote(q) {
		vs++
		if c := strings.IndexByte(s[vs:ve], q); c >= 0 {
			ve = vs + c
		} else if c := strings.IndexByte(s[vs:min(len(s), vs+256)], q); c >= 0 {
			ve = vs + c // a quoted value with blanks in it
		}
	}
	for ve > vs && strings.IndexByte("\"'`),;", s[ve-1]) >= 0 {
		ve--
	}
	switch {
	case o.prefix != "":
		if !strings.HasPrefix(s[vs:ve], o.prefix) {
			return edit{}, false // env:VAR, file:path
		}
		vs += len(o.prefix)
	case o.after != 0:
		c := strings.IndexByte(s[vs:ve], o.after)
		if c < 0 {
			return edit{}, false // a user name alone: the client asks
		}
		vs += c + 1
	}
	v := s[vs:ve]
	if v == "" || isPlaceholder(v) || strings.HasPrefix(v, markerPrefix) || v[0] == '-' {
		return edit{}, false
	}
	return edit{vs, ve, marker(kindPassword)}, true
}
