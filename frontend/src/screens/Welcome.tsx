import { useNavigate } from "react-router";
import { useAuth } from "../auth/AuthContext";
import { CreateClass } from "./Classes";

/**
 * The first screen of a signed-in identity without a Lexora account (Me
 * answered no-account): a teacher creates their first class and is a
 * teacher from then on (self-serve); a learner is added by their teacher
 * with this email, then signs in again.
 */
export function Welcome() {
  const { user } = useAuth();
  const navigate = useNavigate();
  return (
    <section aria-labelledby="welcome-title" className="narrow">
      <h1 id="welcome-title">Welcome to Lexora</h1>
      <p>
        You are signed in as <strong>{user?.email}</strong>, which has no Lexora account yet.
      </p>
      <h2>Do you teach?</h2>
      <p>Create your first class: you become its teacher, and get a join code to give your learners.</p>
      <CreateClass newcomer onCreated={() => navigate("/teacher/classes")} />
      <h2>Are you learning?</h2>
      <p>
        Ask your teacher to add <strong>{user?.email}</strong> to their class, then sign out and sign in again: your
        decks will be waiting.
      </p>
    </section>
  );
}
