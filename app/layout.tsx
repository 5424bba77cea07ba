// The document shell shared by every page: language, title, viewport and the global styles.
import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { serverEnv } from "@/lib/env";
import "./globals.css";

const description = "Find x402 services, compare their prices and pay them in USDC within your own limits, signed by your own wallet.";

/**
 * The origin a shared link's card is fetched from (its image's absolute URL): the deployment's
 * public origin (APP_URL), read as the server reads it; left to Next's default only when the
 * configuration cannot be read here.
 */
function metadataBase(): URL | undefined {
  try {
    return new URL(serverEnv().appOrigin);
  } catch {
    return undefined;
  }
}

// The icons, the web manifest and the card a shared link shows live in public/.
const base = metadataBase();
export const metadata: Metadata = {
  ...(base ? { metadataBase: base } : {}),
  title: "x402 payment agent",
  description,
  icons: { icon: [{ url: "/icon.svg", type: "image/svg+xml" }, { url: "/icon-192.png", sizes: "192x192", type: "image/png" }], apple: "/icon-192.png" },
  manifest: "/manifest.webmanifest",
  openGraph: {
    type: "website",
    title: "x402 payment agent",
    description,
    images: [{ url: "/og-card.png", width: 1200, height: 630, alt: "x402 payment agent: pay x402 services in USDC within your limits" }],
  },
  twitter: { card: "summary_large_image", title: "x402 payment agent", description, images: ["/og-card.png"] },
};

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#f6f7f9" },
    { media: "(prefers-color-scheme: dark)", color: "#111317" },
  ],
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
