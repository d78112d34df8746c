import { useNavigate } from "react-router";
import { useAuth } from "../../auth/AuthContext";
import { JoinClass } from "../learner/JoinClass";
import { CreateClass } from "../teacher/CreateClass";
import { StudyOnMyOwn } from "./StudyOnMyOwn";

/**
 * The first screen of a signed-in identity without a Lexora account (Me
 * answered no-account), who makes their own account (self-serve): a
 * teacher by creating their first class, a learner by joining one with the
 * join code their teacher gave them (then their Today screen shows the
 * class's decks), or a learner in no class who studies the library on
 * their own (then the Library opens).
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
      <h2>Are you learning?</h2>
      <p>Join your class with the join code your teacher gave you: its decks are yours at once.</p>
      <JoinClass newcomer onJoined={() => void navigate("/")} />
      <p>No class code? Study the library's decks on your own, 20 new words a day; you can join a class later.</p>
      <StudyOnMyOwn onCreated={() => void navigate("/library")} />
      <h2>Do you teach?</h2>
      <p>Create your first class: you become its teacher, and get a join code to give your learners.</p>
      <CreateClass newcomer onCreated={() => void navigate("/teacher/classes")} />
    </section>
  );
}
