// A link into a folded section (lmnotes.book.fold) opens it: on load and when the address's
// fragment changes, every closed <details> around the target is opened and the target scrolled
// into view.
function lmnotesOpenTarget() {
  const id = decodeURIComponent(location.hash.slice(1));
  const target = id && document.getElementById(id);
  if (!target) return;
  let opened = false;
  for (let d = target.closest('details'); d; d = d.parentElement.closest('details')) {
    if (!d.open) { d.open = true; opened = true; }
  }
  if (opened) target.scrollIntoView();
}
window.addEventListener('hashchange', lmnotesOpenTarget);
document.addEventListener('DOMContentLoaded', lmnotesOpenTarget);
