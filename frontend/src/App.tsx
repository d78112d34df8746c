import { QueryClient, QueryClientProvider, useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useEffect, useRef, useState, type ReactNode, type RefObject } from "react";
import { BrowserRouter, Navigate, NavLink, Route, Routes, useLocation, useNavigate } from "react-router";
import { ApiProvider } from "./api/ApiContext";
import { ApiError } from "./api/problem";
import { AuthProvider, useAuth } from "./auth/AuthContext";
import { useStanding, type Standing } from "./auth/me";
import { SignIn } from "./auth/SignIn";
import { Loading } from "./components/States";
import { Review } from "./features/learner/review/Review";
import { ReviewSenderProvider } from "./features/learner/review/SenderContext";
import { Today } from "./features/learner/Today";

// The screens with charts load their code when first opened.
const Schedule = lazy(() => import("./features/learner/Schedule").then((m) => ({ default: m.Schedule })));
const Progress = lazy(() => import("./features/learner/Progress").then((m) => ({ default: m.Progress })));
const Webhooks = lazy(() => import("./features/teacher/Webhooks").then((m) => ({ default: m.Webhooks })));
const Classes = lazy(() => import("./features/teacher/Classes").then((m) => ({ default: m.Classes })));
const Decks = lazy(() => import("./features/teacher/Decks").then((m) => ({ default: m.Decks })));
const DeckPage = lazy(() => import("./features/teacher/DeckPage").then((m) => ({ default: m.DeckPage })));
const ClassProgress = lazy(() => import("./features/teacher/ClassProgress").then((m) => ({ default: m.ClassProgress })));
const Library = lazy(() => import("./features/learner/Library").then((m) => ({ default: m.Library })));
const Welcome = lazy(() => import("./features/newcomer/Welcome").then((m) => ({ default: m.Welcome })));
const Operator = lazy(() => import("./features/operator/Operator").then((m) => ({ default: m.Operator })));

type Audience = NonNullable<Standing["role"]>;

/**
 * The screens and who they are for: a role from `Me` (or the development
 * sign-in), or `newcomer`, an identity without an account. A user whose
 * role cannot be learnt (Me failing) is offered every section but the
 * newcomer's; the functions answer 404 to a role they are not for. A
 * section without a label is a screen reached from another (no place in
 * the navigation).
 */
export const sections: { path: string; label?: string; roles: Audience[]; element: ReactNode }[] = [
  { path: "/welcome", label: "Welcome", roles: ["newcomer"], element: <Welcome /> },
  { path: "/today", label: "Today", roles: ["learner"], element: <Today /> },
  { path: "/review", label: "Review", roles: ["learner"], element: <Review /> },
  { path: "/schedule", label: "Schedule", roles: ["learner"], element: <Schedule /> },
  { path: "/progress", label: "Progress", roles: ["learner"], element: <Progress /> },
  { path: "/library", label: "Library", roles: ["learner"], element: <Library /> },
  { path: "/teacher/classes", label: "Classes", roles: ["teacher"], element: <Classes /> },
  { path: "/teacher/classes/:classId", roles: ["teacher"], element: <ClassProgress /> },
  { path: "/teacher/decks", label: "Decks", roles: ["teacher"], element: <Decks /> },
  { path: "/teacher/decks/:deckId", roles: ["teacher"], element: <DeckPage /> },
  { path: "/teacher/webhooks", label: "Webhooks", roles: ["teacher"], element: <Webhooks /> },
  { path: "/operator", label: "Outbox", roles: ["operator"], element: <Operator /> },
];

function allowed(roles: Audience[], role: Standing["role"]) {
  return role === null ? !roles.includes("newcomer") : roles.includes(role);
}

function visible(role: Standing["role"]) {
  return sections.filter((s) => s.label && allowed(s.roles, role));
}

export function newQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // Reads are retried on network failures and 5xx, never on a refusal.
        retry: (failures, error) => !(error instanceof ApiError && !error.retryable) && failures < 2,
      },
    },
  });
}

/**
 * After a sign-in (not a session found on load), moves the focus to the
 * main heading of the first screen, once it is shown (the screen loads
 * after Me answers), so that a keyboard or screen reader starts there.
 */
function useFocusAfterSignIn(main: RefObject<HTMLElement | null>) {
  const { user, ready } = useAuth();
  const signedIn = useRef<boolean | null>(null);
  useEffect(() => {
    if (!ready) return;
    const before = signedIn.current;
    signedIn.current = user !== null;
    const root = main.current;
    if (before !== false || !user || !root) return;
    const focus = () => {
      const heading = root.querySelector("h1");
      if (!heading || heading.id === "signin-title") return false;
      heading.tabIndex = -1;
      heading.focus();
      return true;
    };
    if (focus()) return;
    const observer = new MutationObserver(() => focus() && observer.disconnect());
    observer.observe(root, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [user, ready, main]);
}

/**
 * The header (brand, navigation, who is signed in) and the main area. A
 * learner's navigation is a bottom tab bar on a narrow screen (styles.css,
 * nav.tabs), so that the header keeps one row and the review keeps the
 * screen.
 */
function Shell({ children }: { children: ReactNode }) {
  const { user, signOut } = useAuth();
  const { role, ready, me } = useStanding();
  const queryClient = useQueryClient();
  const main = useRef<HTMLElement>(null);
  useFocusAfterSignIn(main);
  const tabs = Boolean(user && ready && role === "learner");
  return (
    <>
      <a href="#main" className="skip">
        Skip to content
      </a>
      <header className={tabs ? "top with-tabs" : "top"}>
        <span className="brand">Lexora</span>
        {user && ready && (
          <nav aria-label="Sections" className={tabs ? "tabs" : undefined}>
            <ul>
              {visible(role).map((s) => (
                <li key={s.path}>
                  <NavLink to={s.path}>{s.label}</NavLink>
                </li>
              ))}
            </ul>
          </nav>
        )}
        {user && (
          <div className="who">
            <span>{me?.display_name ?? user.displayName}</span>
            <button type="button" onClick={() => void signOut().then(() => queryClient.clear())}>
              Sign out
            </button>
          </div>
        )}
      </header>
      <main id="main" ref={main} className={tabs ? "with-tabs" : undefined}>
        <Suspense fallback={<Loading what="the screen" />}>{children}</Suspense>
      </main>
    </>
  );
}

/**
 * Signs out when a function answers 401 (the token expired, or the identity
 * has no Lexora account), and shows the reason on the sign-in screen.
 */
function SignOutWhenUnauthenticated() {
  const { user, signOut } = useAuth();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  useEffect(
    () =>
      queryClient.getQueryCache().subscribe((event) => {
        const error: unknown = event.query.state.error;
        if (user && event.type === "updated" && error instanceof ApiError && error.status === 401) {
          void signOut().then(() => {
            queryClient.clear();
            void navigate("/signin", { state: { reason: error.problem.detail ?? error.problem.title } });
          });
        }
      }),
    [user, signOut, queryClient, navigate],
  );
  return null;
}

function Guard({ roles, children }: { roles: Audience[]; children: ReactNode }) {
  const { user, ready } = useAuth();
  const standing = useStanding();
  const location = useLocation();
  if (!ready) return <Loading what="your session" />;
  if (!user) return <Navigate to="/signin" replace state={{ from: location.pathname }} />;
  if (!standing.ready) return <Loading what="your account" />;
  if (!allowed(roles, standing.role)) return <Navigate to="/" replace />;
  return <>{children}</>;
}

function Home() {
  const { user, ready } = useAuth();
  const standing = useStanding();
  if (!ready) return <Loading what="your session" />;
  if (!user) return <Navigate to="/signin" replace />;
  if (!standing.ready) return <Loading what="your account" />;
  const first = visible(standing.role)[0];
  return <Navigate to={first ? first.path : "/signin"} replace />;
}

function Screens() {
  const { user } = useAuth();
  const { role } = useStanding();
  const routes = (
    <Routes>
      <Route path="/" element={<Home />} />
      <Route path="/signin" element={<SignIn />} />
      {sections.map((s) => (
        <Route key={s.path} path={s.path} element={<Guard roles={s.roles}>{s.element}</Guard>} />
      ))}
      <Route path="*" element={<Navigate to="/" replace />} />
    </Routes>
  );
  // The rating queue belongs to the signed-in learner: ratings queued
  // offline are sent on their next visit, from any screen.
  return user && (role === "learner" || role === null) ? (
    <ReviewSenderProvider learnerId={user.id}>{routes}</ReviewSenderProvider>
  ) : (
    routes
  );
}

/** The navigation and the screens, inside a router and the providers. */
export function AppRoutes() {
  return (
    <>
      <SignOutWhenUnauthenticated />
      <Shell>
        <Screens />
      </Shell>
    </>
  );
}

export function App() {
  const [queryClient] = useState(newQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <AuthProvider>
        <ApiProvider>
          <BrowserRouter>
            <AppRoutes />
          </BrowserRouter>
        </ApiProvider>
      </AuthProvider>
    </QueryClientProvider>
  );
}
