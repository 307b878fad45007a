package js

// PageReads are the names of the page's global object, its document and
// a form that the runtime's scripts read, with wasm_exec.js's in the
// main-thread mode. Markup can take each: an element with that id, or
// an embed, form, iframe, img or object with that name, shadows it on
// the window where the window has no such member, and on the document
// whatever its members (Document's [LegacyOverrideBuiltIns]); a control
// with that name shadows it on its form. The runtime reads each through
// a getter or method of the DOM's prototypes taken at start
// (webmcp/dom.js), or as the window's own property (Object.hasOwn), and
// never looks any up by name: TestPageReads holds the scripts to that,
// and the browser suite plants an element by each name in each place.
var PageReads = []string{
	// The global object's: the runtime's namespace (a second copy looks
	// for it), what it defines where the page has none, and what
	// wasm_exec.js and worker.js leave there in the main-thread mode.
	"veil", "ModelContext", "ToolActivatedEvent", "ToolCancelEvent", "Go", "__veilStart", "fs", "process", "path",
	// The document's.
	"currentScript", "head", "body", "documentElement", "readyState", "baseURI", "URL", "defaultView", "hidden",
	"activeElement", "createElement", "querySelector", "querySelectorAll", "addEventListener", "appendChild",
	"permissionsPolicy", "featurePolicy", "modelContext",
	// An element's, a form's among them.
	"getAttribute", "hasAttribute", "setAttribute", "removeAttribute", "matches", "localName", "nodeType",
	"shadowRoot", "isConnected", "ownerDocument", "getRootNode", "action", "method",
	"removeEventListener", "elements", "checkValidity", "requestSubmit",
}
