/// <reference types="vitest/config" />
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import { VitePWA } from "vite-plugin-pwa";
import { userCaches } from "./src/offline/copies";

// The functions' origin during `npm run dev` (make run serves them on 8080).
const api = process.env.LEXORA_API ?? "http://127.0.0.1:8080";

export default defineConfig({
  plugins: [
    react(),
    // The installable app: dist/manifest.webmanifest (linked from
    // index.html) and dist/sw.js, a Workbox service worker
    // (src/offline/register.ts registers it and says how a new build
    // replaces the old). Both are served from the root with
    // Cache-Control: no-cache (functions/cmd/server/static.go,
    // cloudbuild.yaml's web-publish).
    VitePWA({
      injectRegister: false,
      manifest: {
        name: "Lexora",
        short_name: "Lexora",
        description: "Learn words with spaced repetition, online or offline.",
        id: "/",
        start_url: "/",
        scope: "/",
        display: "standalone",
        theme_color: "#2f5fa7",
        background_color: "#f7f8fa",
        icons: [
          { src: "/icon-192.png", sizes: "192x192", type: "image/png" },
          { src: "/icon-512.png", sizes: "512x512", type: "image/png" },
          { src: "/icon-maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
          { src: "/icon.svg", sizes: "any", type: "image/svg+xml" },
        ],
      },
      workbox: {
        // The app shell: index.html and every file of the build but the
        // source maps, the lazily loaded screens and the Firebase SDK
        // included, so that any screen opens offline.
        globPatterns: ["**/*.{js,css,html,ico,png,svg,webmanifest}"],
        maximumFileSizeToCacheInBytes: 4 * 1024 * 1024,
        // One file: the load balancer routes only named root files to the
        // bucket (terraform/hosting.tf), so no workbox-<hash>.js beside it.
        inlineWorkboxRuntime: true,
        sourcemap: false,
        // Every client route is the app; a function's path (/GetSchedule)
        // and the development sign-in (/dev/...) are not.
        navigateFallback: "/index.html",
        navigateFallbackDenylist: [/^\/[A-Z]/, /^\/dev\//],
        skipWaiting: true,
        clientsClaim: true,
        cleanupOutdatedCaches: true,
        // The last answer of each read a learner needs offline, from the
        // network while there is one (NetworkFirst), else from the copy.
        // Only 200s are kept; a sign-out deletes the caches
        // (src/offline/copies.ts). Writes (POST) are never cached: the
        // rating queue sends them (src/features/learner/review/sender.ts).
        runtimeCaching: [
          {
            urlPattern: ({ url, sameOrigin }) => sameOrigin && url.pathname === "/GetSchedule",
            method: "GET",
            handler: "NetworkFirst",
            options: {
              cacheName: userCaches.schedule,
              // A train's trickle of a network: the copy after 10 s.
              networkTimeoutSeconds: 10,
              expiration: { maxEntries: 16 },
              cacheableResponse: { statuses: [200] },
            },
          },
          {
            urlPattern: ({ url, sameOrigin }) => sameOrigin && url.pathname === "/Me",
            method: "GET",
            handler: "NetworkFirst",
            options: {
              cacheName: userCaches.me,
              networkTimeoutSeconds: 10,
              expiration: { maxEntries: 1 },
              cacheableResponse: { statuses: [200] },
            },
          },
        ],
      },
    }),
  ],
  server: {
    // In development the client is served by Vite (with hot reload) and
    // every function call and the development sign-in go to the local
    // stack, so the browser still sees one origin.
    proxy: {
      "^/[A-Z][A-Za-z]+(\\?.*)?$": api,
      "/dev/": api,
    },
  },
  build: { target: "es2022", sourcemap: true },
  test: {
    environment: "jsdom",
    globals: true,
    setupFiles: ["src/test/setup.ts"],
    include: ["src/**/*.test.{ts,tsx}"],
    restoreMocks: true,
    // One jsdom and one module graph per worker thread, not per file: each
    // test renders into a fresh root (cleanup), gets its own QueryClient,
    // fake server and IndexedDB, so nothing leaks between files, and the
    // run takes a third of the time (80 s against 264 s, same machine load).
    pool: "threads",
    isolate: false,
    // The machines are shared and slow; recharts in jsdom takes seconds.
    testTimeout: 60_000,
  },
});
