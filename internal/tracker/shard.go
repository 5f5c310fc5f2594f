package tracker

import (
	"fmt"
	"strings"
	"time"
)

// Shards are the parts an oversized item of a loop's plan was split into
// (seed 003's RLP-006), told to the ticket as its sub-issues (SHD-003).
type Shards struct {
	Tracker, Issue, Project, Repo string
	// Item is the item sharded; Titles the shards' items in the plan.
	Item   string
	Titles []string
	Time   time.Time
}

// Updates are one SubIssue update per shard. Their keys come from the
// parent, the item and the shard's place, so sharding the same item again
// (a loop restarted) queues nothing new.
func (s Shards) Updates() []Update {
	var out []Update
	for i, title := range s.Titles {
		body := fmt.Sprintf("Shard %d of %d of %s: %s\n\nSharded by `cairn loop`: the item was estimated too big for one session (fix_plan.md). It is closed when the loop ticks it.",
			i+1, len(s.Titles), s.Issue, s.Item)
		out = append(out, Update{Key: Key(s.Tracker, s.Issue, string(SubIssue), s.Item, fmt.Sprint(i), fmt.Sprint(len(s.Titles))),
			Tracker: s.Tracker, Issue: s.Issue, Project: s.Project, Repo: s.Repo, Kind: SubIssue,
			Title: title, Body: body, Created: s.Time, Seq: i})
	}
	return out
}

// ShardDone is what a shard ticked in the plan tells the tracker
// (SHD-004): the shard's sub-issue is closed (Ref: the key of the update
// that created it), and the parent gets the progress of its shards.
type ShardDone struct {
	Tracker, Issue, Project, Repo string
	// Ref is the key of the shard's SubIssue update; Title its item.
	Ref   string
	Title string
	// Done of Total shards of Item are ticked; Tickets are the shards'
	// sub-issues as known so far, in order ("" for one not yet created).
	Done, Total int
	Item        string
	Tickets     []string
	Time        time.Time
}

// Updates close the shard's sub-issue, then comment the progress on the
// parent.
func (d ShardDone) Updates() []Update {
	base := Update{Tracker: d.Tracker, Issue: d.Issue, Project: d.Project, Repo: d.Repo, Created: d.Time}
	closeIt := base
	closeIt.Kind, closeIt.Ref, closeIt.Key = Close, d.Ref, Key(d.Tracker, d.Ref, string(Close))
	var b strings.Builder
	fmt.Fprintf(&b, "**Shard progress** · %d/%d shards done of %s\n\nDone: %s\n", d.Done, d.Total, d.Item, d.Title)
	var known []string
	for _, t := range d.Tickets {
		if t != "" {
			known = append(known, t)
		}
	}
	if len(known) > 0 {
		fmt.Fprintf(&b, "\nShards: %s\n", strings.Join(known, ", "))
	}
	progress := base
	progress.Kind, progress.Body, progress.Seq = Comment, b.String(), 1
	progress.Key = Key(d.Tracker, d.Issue, "shard-progress", d.Ref)
	return []Update{closeIt, progress}
}
