"use client";
// A modal <dialog> rendered from the first time it is opened. A closed dialog shows nothing, and
// leaving it out of the page's first render spares a phone the hydration of its form: the AI apps'
// and the settings' dialogs held 81 of the page's 192 elements. Once opened it stays rendered.
//
//   const { dialog, rendered, show } = useModalDialog();
//   <button onClick={show}>Open</button>
//   {rendered ? <dialog ref={dialog} onClose={…}>…</dialog> : null}
import { useRef, useState } from "react";
import { flushSync } from "react-dom";

export function useModalDialog() {
  const dialog = useRef<HTMLDialogElement>(null);
  const [rendered, setRendered] = useState(false);
  /** Opens the dialog as a modal, rendering it first (at once, in the click) if it is not yet. */
  const show = () => {
    if (!dialog.current) flushSync(() => setRendered(true));
    dialog.current?.showModal();
  };
  return { dialog, rendered, show };
}
