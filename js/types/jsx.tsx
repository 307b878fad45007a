// <veil-secrets> in React's JSX: its attributes, typed, and the registration
// in an effect that the React recipe of docs/install.md shows.
import { StrictMode, useEffect, useRef } from 'react';

export function Tray() {
  const ref = useRef<VeilSecretsElement>(null);
  return (
    <StrictMode>
      <veil-secrets hide-after={30} heading-level="3" ref={ref} className="tray">
        <span slot="title">Your keys</span>
      </veil-secrets>
      <veil-secrets hide-after="45" />
    </StrictMode>
  );
}

export function Registers() {
  useEffect(() => {
    const controller = new AbortController();
    document.modelContext
      .registerTool({ name: 'ping', description: 'Answers pong', execute: () => 'pong' }, { signal: controller.signal })
      .catch((e: unknown) => controller.signal.aborted || console.error(e));
    return () => controller.abort();
  }, []);
  return null;
}

// @ts-expect-error hide-after is seconds: a number or a numeric string
export const notSeconds = <veil-secrets hide-after="soon" />;
// @ts-expect-error heading-level is 1 to 6
export const noLevel = <veil-secrets heading-level={7} />;
// @ts-expect-error an element no declaration names
export const unknown = <veil-secret />;
