package keymap

import "github.com/charmbracelet/bubbles/key"

// KeyMap holds every binding of the TUI.
type KeyMap struct {
	// Screens.
	NextScreen key.Binding
	PrevScreen key.Binding
	Overview   key.Binding
	Target     key.Binding
	Plan       key.Binding
	Apply      key.Binding
	Timeline   key.Binding

	// Global.
	Help   key.Binding
	Quit   key.Binding
	Reload key.Binding

	// Lists and viewports.
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding
	// ScrollUp and ScrollDown scroll a detail pane (manifest, diff, log) while the
	// list keeps its cursor.
	ScrollUp   key.Binding
	ScrollDown key.Binding
	Filter     key.Binding
	Back       key.Binding

	// Target screen.
	AcceptRisk key.Binding

	// Plan screen.
	Diff key.Binding
	// Pair jumps between a temporary change and the revert step paired with it.
	Pair key.Binding
	// NextStage and PrevStage expand another stage of a staged plan (the
	// current one is expanded until one is chosen).
	NextStage key.Binding
	PrevStage key.Binding

	// Apply screen; all dangerous.
	Start   key.Binding
	Confirm key.Binding
	Skip    key.Binding
	Retry   key.Binding
	Abort   key.Binding

	// Dialogs.
	Yes key.Binding
	No  key.Binding

	readOnly bool
}

// Default returns the keymap with every binding enabled.
func Default() *KeyMap {
	return &KeyMap{
		NextScreen: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next screen")),
		PrevScreen: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous screen")),
		Overview:   key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "overview")),
		Target:     key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "target")),
		Plan:       key.NewBinding(key.WithKeys("3"), key.WithHelp("3", "plan")),
		Apply:      key.NewBinding(key.WithKeys("4"), key.WithHelp("4", "apply")),
		Timeline:   key.NewBinding(key.WithKeys("5"), key.WithHelp("5", "timeline")),

		Help:   key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:   key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Reload: key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "re-read the cluster")),

		Up:         key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:       key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:     key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown", "ctrl+f"), key.WithHelp("pgdn", "page down")),
		Top:        key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
		Bottom:     key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "bottom")),
		ScrollUp:   key.NewBinding(key.WithKeys("K", "ctrl+u"), key.WithHelp("K", "scroll details up")),
		ScrollDown: key.NewBinding(key.WithKeys("J", "ctrl+d"), key.WithHelp("J", "scroll details down")),
		Filter:     key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Back:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear/back")),

		AcceptRisk: key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "accept risk")),
		Diff:       key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "diff vs live")),
		Pair:       key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "paired step")),
		NextStage:  key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next stage")),
		PrevStage:  key.NewBinding(key.WithKeys("["), key.WithHelp("[", "previous stage")),

		Start:   key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "start apply")),
		Confirm: key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "apply step")),
		Skip:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "skip")),
		Retry:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "retry")),
		Abort:   key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "abort run")),

		Yes: key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yes")),
		No:  key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", "no")),
	}
}

// Name is the key a binding is shown as ("a", "n/esc"): screen text that names a
// key says it through Name, so prose, footer and ? overlay never disagree.
func Name(b key.Binding) string { return b.Help().Key }

// Describe changes what b says it does in the footer and the ? overlay, keeping
// the key it is shown as: a screen that re-describes a binding ("resume run"
// instead of "start apply") never spells its key, so a rebinding in Default
// reaches every place.
func Describe(b *key.Binding, desc string) { b.SetHelp(Name(*b), desc) }

// Dangerous returns the bindings that change the cluster.
func (k *KeyMap) Dangerous() []*key.Binding {
	return []*key.Binding{&k.Start, &k.Confirm, &k.Skip, &k.Retry, &k.Abort}
}

// IsDangerous reports whether b is one of the dangerous bindings.
func (k *KeyMap) IsDangerous(b *key.Binding) bool {
	for _, d := range k.Dangerous() {
		if d == b {
			return true
		}
	}
	return false
}

// ClearDanger makes the keymap read-only: every dangerous binding is disabled and
// stays disabled whatever Enable asks later.
func (k *KeyMap) ClearDanger() {
	k.readOnly = true
	for _, b := range k.Dangerous() {
		b.SetEnabled(false)
	}
}

// ReadOnly reports whether ClearDanger was called.
func (k *KeyMap) ReadOnly() bool { return k.readOnly }

// Enable turns b on or off; a dangerous binding stays off in a read-only keymap.
func (k *KeyMap) Enable(b *key.Binding, on bool) {
	b.SetEnabled(on && !(k.readOnly && k.IsDangerous(b)))
}

// Global are the bindings every screen shows in the footer, after its own.
func (k *KeyMap) Global() []key.Binding {
	return []key.Binding{k.Abort, k.Quit, k.Help, k.NextScreen}
}

// Screens are the screen-switching bindings, for the full help.
func (k *KeyMap) Screens() []key.Binding {
	return append([]key.Binding{k.NextScreen, k.PrevScreen}, k.Tabs()...)
}

// Tabs are the bindings that show each screen, in tab order: the header labels
// its tabs with them.
func (k *KeyMap) Tabs() []key.Binding {
	return []key.Binding{k.Overview, k.Target, k.Plan, k.Apply, k.Timeline}
}

// Navigation are the list and viewport bindings, for the full help.
func (k *KeyMap) Navigation() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.ScrollUp, k.ScrollDown}
}
