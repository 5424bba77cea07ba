"use client";
// A value as the page last committed it, for code that runs after a render (a handler, an effect,
// an awaited step) and must see the latest: set in a layout effect, so before any handler runs and
// never during a render (which the React Compiler would refuse to compile).
import { useLayoutEffect, useRef, type RefObject } from "react";

export function useCommitted<T>(value: T): RefObject<T> {
  const ref = useRef(value);
  useLayoutEffect(() => {
    ref.current = value;
  }, [value]);
  return ref;
}
