// editor.js: form-associated custom elements as design systems ship them,
// for forms_attack_test.go. <x-field> submits one string under its name;
// <x-editor> submits what the user wrote twice, as text and as HTML,
// under names of its own (setFormValue with a FormData), as rich-text
// editors do.
"use strict";

(() => {
  class Field extends HTMLElement {
    static formAssociated = true;
    #internals = this.attachInternals();
    #value = "";
    get value() {
      return this.#value;
    }
    set value(v) {
      this.#value = String(v);
      this.#internals.setFormValue(this.#value);
    }
  }
  class Editor extends HTMLElement {
    static formAssociated = true;
    #internals = this.attachInternals();
    #value = "";
    get value() {
      return this.#value;
    }
    set value(v) {
      this.#value = String(v);
      const name = this.getAttribute("name") ?? "editor";
      const fd = new FormData();
      fd.append(`${name}_text`, this.#value);
      fd.append(`${name}_html`, `<p>${this.#value}</p>`);
      this.#internals.setFormValue(fd);
    }
  }
  customElements.define("x-field", Field);
  customElements.define("x-editor", Editor);
})();
